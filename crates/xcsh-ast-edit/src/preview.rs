//! What the model sees of a preview: a summary, per-file matches with line
//! numbers, a unified diff, and structured details.

use std::fmt::Write as _;

use serde_json::{Value, json};
use xcsh_tool_types::unified_diff;

use crate::AstEditParams;
use crate::label::{count, preview_label};
use crate::plan::Plan;

/// The text of a preview that changes nothing.
pub const NO_REPLACEMENTS: &str = "No replacements made";

/// The preview's text: the label (or [`NO_REPLACEMENTS`]), then matches,
/// notes and the diff.
pub(crate) fn preview_text(plan: &Plan) -> String {
    let total = plan.total_replacements();
    if total == 0 {
        // Files that did not parse or were skipped may be why nothing matched.
        let mut text = NO_REPLACEMENTS.to_owned();
        write_parse_errors(&mut text, plan);
        write_skipped(&mut text, plan);
        return text;
    }
    let mut text = preview_label(total, plan.changes.len());
    text.push('\n');
    for change in &plan.changes {
        let _ = write!(
            text,
            "\n{}: {}",
            change.write.snapshot.display(),
            count(change.replacements.len(), "replacement")
        );
        for replacement in &change.replacements {
            let _ = write!(
                text,
                "\n  {}:{}: {} => {}",
                replacement.line,
                replacement.column,
                first_line(&replacement.matched),
                first_line(&replacement.replacement)
            );
        }
    }
    write_parse_errors(&mut text, plan);
    write_skipped(&mut text, plan);
    if plan.limit_reached {
        text.push_str(
            "\n\nStopped at the max_replacements / max_files limit: more matches may exist.",
        );
    }
    for change in &plan.changes {
        text.push_str("\n\n");
        text.push_str(&unified_diff(
            change.write.snapshot.display(),
            &change.original,
            &change.write.new_content,
        ));
    }
    let trimmed = text.trim_end().len();
    text.truncate(trimmed);
    text
}

fn write_parse_errors(text: &mut String, plan: &Plan) {
    if plan.parse_errors.is_empty() {
        return;
    }
    let _ = write!(
        text,
        "\n\nCould not parse as {} (not edited):",
        plan.language
    );
    for failure in &plan.parse_errors {
        let _ = write!(text, "\n  {}:{}", failure.display, failure.line);
    }
}

fn write_skipped(text: &mut String, plan: &Plan) {
    if plan.skipped.is_empty() {
        return;
    }
    text.push_str("\n\nSkipped:");
    for skipped in &plan.skipped {
        let _ = write!(text, "\n  {}: {}", skipped.display, skipped.reason);
    }
}

/// The first line of `text`, marked with `…` when more lines follow.
fn first_line(text: &str) -> String {
    match text.split_once('\n') {
        Some((first, _)) => format!("{}…", first.trim_end()),
        None => text.to_owned(),
    }
}

/// Structured details of a preview: the call, totals, per-file matches,
/// parse errors and skipped files.
pub(crate) fn preview_details(params: &AstEditParams, plan: &Plan) -> Value {
    json!({
        "pattern": params.pattern,
        "rewrite": params.rewrite,
        "language": plan.language.name(),
        "path": params.path.as_deref().unwrap_or("."),
        "totalReplacements": plan.total_replacements(),
        "totalFiles": plan.changes.len(),
        "filesSearched": plan.files_searched,
        "limitReached": plan.limit_reached,
        "files": plan.changes.iter().map(|change| json!({
            "path": change.write.snapshot.display(),
            "replacements": change.replacements.len(),
            "matches": change.replacements.iter().map(|r| json!({
                "line": r.line,
                "column": r.column,
                "text": r.matched,
                "replacement": r.replacement,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "parseErrors": plan.parse_errors.iter().map(|failure| json!({
            "path": failure.display,
            "line": failure.line,
        })).collect::<Vec<_>>(),
        "skipped": plan.skipped.iter().map(|skipped| json!({
            "path": skipped.display,
            "reason": skipped.reason,
        })).collect::<Vec<_>>(),
    })
}
