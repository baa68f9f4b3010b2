//! What the model is told after a person undid an apply.

use crate::UndoRecord;

/// The hidden reminder for the model after `undo`, e.g.
///
/// ```text
/// <system-reminder>
/// A person undid apply 3 ("Batch Rename: 2 files"): restored draft-a.md, draft-b.md; removed final-a.md, final-b.md. Those files are as they were before that apply: read them again before relying on what you saw.
/// </system-reminder>
/// ```
pub fn reminder(undo: &UndoRecord) -> String {
    let mut what = Vec::new();
    if !undo.restored.is_empty() {
        what.push(format!("restored {}", undo.restored.join(", ")));
    }
    if !undo.removed.is_empty() {
        what.push(format!("removed {}", undo.removed.join(", ")));
    }
    format!(
        "<system-reminder>\n{} undid apply {} (\"{}\"): {}. Those files are as they were before that apply: read them again before relying on what you saw.\n</system-reminder>",
        if undo.by == "model" {
            "You"
        } else {
            "A person"
        },
        undo.undid,
        undo.label,
        what.join("; ")
    )
}
