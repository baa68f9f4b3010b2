//! Human-readable rendering of steps and load reports (`run --pretty`, the
//! REPL, `tools`).
//!
//! A call renders as a status line (`✓`/`✗`, the tool, the first line of
//! its result) with the rest of the result indented below, then the pending
//! stack (`⏳ 1 pending: Batch Rename: 2 files`) while anything is pending.
//! A `resolve` renders as `Accept: [Source] summary — reason: …` or
//! `Discard: …`, the badge and summary taken from the action label's
//! `Source: summary` form.
//!
//! Every text a pack, a tool or a caller chose is escaped ([`xcsh_text::escape`]):
//! one-line fields show their control characters as `\n`, `\u{1b}`…, tool
//! output keeps its newlines (each continuation line indented) but no other
//! control character, so no output can forge or rewrite a line.

use std::borrow::Cow;

use serde_json::Value;
use xcsh_core::{ContentBlock, PendingSummary, ToolResult};
use xcsh_loader::LoadReport;

use xcsh_agent::is_resolve;
use xcsh_script::Step;
use xcsh_text::escape;

/// Marks a successful call.
pub const OK: &str = "✓";
/// Marks a failed call.
pub const FAILED: &str = "✗";
/// Marks the pending-stack line.
pub const PENDING: &str = "⏳";

/// One step: status line, indented result, pending line.
pub fn step(step: &Step) -> String {
    let glyph = if step.result.is_error { FAILED } else { OK };
    let mut lines = content_lines(&step.result);
    let tool = step.tool.as_deref().map(escape::line);
    let mut out = match (&tool, resolution(step)) {
        (Some(tool), Some(header)) => format!("{glyph} {tool}  {header}"),
        (Some(tool), None) if !lines.is_empty() => {
            format!("{glyph} {tool}  {}", lines.remove(0))
        }
        (Some(tool), None) => format!("{glyph} {tool}"),
        (None, _) if !lines.is_empty() => format!("{glyph} {}", lines.remove(0)),
        (None, _) => glyph.to_owned(),
    };
    for line in lines {
        out.push_str("\n  ");
        out.push_str(&line);
    }
    if let Some(pending) = pending_line(&step.pending) {
        out.push('\n');
        out.push_str(&pending);
    }
    out
}

/// The result's content, one entry per line (control characters other
/// than the line breaks escaped); images as `[image: {mime}]`.
fn content_lines(result: &ToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .flat_map(|block| match block {
            ContentBlock::Text(text) => text
                .lines()
                .map(|line| escape::text(line).into_owned())
                .collect::<Vec<_>>(),
            ContentBlock::Image { mime_type, .. } => {
                vec![format!("[image: {}]", escape::line(mime_type))]
            }
        })
        .collect()
}

/// `Accept: [Source] summary — reason: …` for a resolve result whose
/// details name the action.
fn resolution(step: &Step) -> Option<String> {
    if !step.tool.as_deref().is_some_and(is_resolve) {
        return None;
    }
    let details = step.result.details.as_ref()?;
    let field = |name: &str| details.get(name).and_then(Value::as_str);
    let verb = match field("action")? {
        "apply" => "Accept",
        "discard" => "Discard",
        _ => return None,
    };
    let (badge, summary) = badge(field("label")?, field("sourceToolName").unwrap_or_default());
    let mut header = format!(
        "{verb}: [{}] {}",
        escape::line(badge),
        escape::line(summary)
    );
    if let Some(reason) = field("reason").filter(|r| !r.trim().is_empty()) {
        header.push_str(" — reason: ");
        header.push_str(&escape::line(reason));
    }
    Some(header)
}

/// Splits a label of the form `Source: summary`; a label without that form
/// gets the source tool's name as its badge.
pub fn badge<'a>(label: &'a str, source_tool_name: &'a str) -> (&'a str, &'a str) {
    match label.split_once(": ") {
        Some((source, summary)) if !source.is_empty() && !summary.is_empty() => (source, summary),
        _ => (source_tool_name, label),
    }
}

/// `⏳ 1 pending: Batch Rename: 2 files`, or for several
/// `⏳ 2 pending (newest first): A; B`, ending `; … and {k} more` when the
/// summary holds fewer labels than the count; `None` when nothing is pending.
/// Labels come from packs: control characters are shown escaped.
pub fn pending_line(pending: &PendingSummary) -> Option<String> {
    let labels: Vec<Cow<'_, str>> = pending
        .newest
        .iter()
        .map(|view| escape::line(&view.label))
        .collect();
    match (pending.count, labels.first()) {
        (0, _) | (_, None) => None,
        (1, Some(label)) => Some(format!("{PENDING} 1 pending: {label}")),
        (n, _) => {
            let mut line = format!(
                "{PENDING} {n} pending (newest first): {}",
                labels.join("; ")
            );
            if n > labels.len() {
                line.push_str(&format!("; … and {} more", n - labels.len()));
            }
            Some(line)
        }
    }
}

/// One line per loaded pack, its build time telling two builds of one
/// version apart:
/// `Loaded tool pack batch-rename 0.1.0 (built 2026-12-02T05:40:12Z) from {path}: batch_rename_preview`.
pub fn loaded_packs(report: &LoadReport) -> Vec<String> {
    report
        .loaded
        .iter()
        .map(|pack| {
            let tools = if pack.tools.is_empty() {
                "no tools".to_owned()
            } else {
                escape::line(&pack.tools.join(", ")).into_owned()
            };
            format!(
                "Loaded tool pack {} {}{} from {}: {tools}",
                escape::line(&pack.name),
                escape::line(&pack.version),
                built(pack.built),
                escape::path(&pack.path)
            )
        })
        .collect()
}

/// ` (built 2026-12-02T05:40:12Z)` for a library's modification time, in
/// UTC to the second; nothing when the file system does not say.
pub fn built(time: Option<std::time::SystemTime>) -> String {
    time.map(|time| format!(" (built {})", humantime::format_rfc3339_seconds(time)))
        .unwrap_or_default()
}

pub mod progress;
#[cfg(test)]
mod tests;
