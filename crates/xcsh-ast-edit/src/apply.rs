//! Applying a previewed edit through [`xcsh_safe_fs::WriteSet`] (the
//! writer packs use too): each file locked, checked and written in place,
//! the files that changed since the preview skipped, the others written
//! all or none.

use serde_json::json;
use xcsh_core::{ToolError, ToolOutput};
use xcsh_safe_fs::{Snapshot, StalePolicy, WriteError, WriteSet};

use crate::source::MAX_FILE_BYTES;

/// What backups of files being written are named after:
/// `.{name}.ast_edit-backup-XXXXXX`.
const BACKUP_TAG: &str = "ast_edit";

/// One file's previewed edit, as the pending action keeps it.
#[derive(Clone, Debug)]
pub(crate) struct PlannedWrite {
    /// The file as the preview read it (symlinks resolved, so a write
    /// never replaces a link with a regular file).
    pub snapshot: Snapshot,
    /// How many replacements the preview made in it.
    pub replacements: usize,
    /// The content the preview showed.
    pub new_content: String,
}

/// Writes every planned file whose content is still what the preview read.
///
/// - A file that changed since the preview (or is gone) is *stale*: it is
///   listed and left exactly as it is now.
/// - A file that already holds the previewed content counts as applied
///   without a write.
///
/// # Errors
///
/// - If every file is stale, nothing was written: the apply fails so the
///   action stays pending and the user sees a failure rather than an
///   "applied" that changed nothing. The message tells the model to
///   discard and preview again (re-applying cannot succeed).
/// - If a write fails, the files written before it are put back as they
///   were and the apply fails naming the file: no file changed, and the
///   action stays pending.
pub(crate) fn apply(writes: &[PlannedWrite]) -> Result<ToolOutput, ToolError> {
    let mut set = WriteSet::new(BACKUP_TAG).with_limit(MAX_FILE_BYTES);
    for write in writes {
        set.add(write.snapshot.clone(), write.new_content.clone());
    }
    let report = set.apply(StalePolicy::Skip).map_err(|error| match error {
        WriteError::Stale { files } => ToolError::new(format!(
            "every file changed since the preview, nothing was written (stale: {}). \
             Discard this action and run ast_edit again for a fresh preview.",
            files.join(", ")
        )),
        other => ToolError::new(other.to_string()),
    })?;
    let applied: Vec<&PlannedWrite> = report.applied.iter().map(|&i| &writes[i]).collect();
    let stale: Vec<&PlannedWrite> = report.stale.iter().map(|&i| &writes[i]).collect();
    let replacements: usize = applied.iter().map(|w| w.replacements).sum();
    let names = |writes: &[&PlannedWrite]| {
        writes
            .iter()
            .map(|w| w.snapshot.display())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // The wording the issue fixed, `(s)` and all, so scripts can match it.
    let mut text = format!(
        "Applied {replacements} replacement(s) in {} file(s).",
        applied.len()
    );
    if !stale.is_empty() {
        text.push_str(&format!(
            "\nNot written, changed since the preview (stale): {}",
            names(&stale)
        ));
    }
    let details = json!({
        "appliedReplacements": replacements,
        "appliedFiles": applied.len(),
        "files": applied
            .iter()
            .map(|w| json!({"path": w.snapshot.display(), "replacements": w.replacements}))
            .collect::<Vec<_>>(),
        "stale": stale.iter().map(|w| w.snapshot.display()).collect::<Vec<_>>(),
    });
    Ok(ToolOutput::text(text).with_details(details))
}

#[cfg(test)]
mod tests;
