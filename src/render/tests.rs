use serde_json::json;
use xcsh_core::{ToolChoice, ToolResult};

use xcsh_core::PendingActionView;

use super::*;
use xcsh_script::Step;

fn view(label: &str) -> PendingActionView {
    PendingActionView {
        label: label.into(),
        source_tool_name: "batch_rename_preview".into(),
    }
}

fn step(tool: Option<&str>, result: ToolResult, pending: &[&str]) -> Step {
    Step {
        line: 1,
        id: None,
        tool: tool.map(str::to_owned),
        result,
        pending: PendingSummary {
            count: pending.len(),
            newest: pending.iter().map(|l| view(l)).collect(),
        },
        tool_choice: ToolChoice::Auto,
        reminders: vec![],
    }
}

fn text(text: &str, is_error: bool) -> ToolResult {
    ToolResult {
        content: vec![ContentBlock::text(text)],
        details: None,
        is_error,
    }
}

#[test]
fn a_preview_shows_its_text_and_the_pending_stack() {
    let preview = step(
        Some("batch_rename_preview"),
        text("Batch rename preview (2 files):\n  a → b\n  c → d", false),
        &["Batch Rename: 2 files"],
    );
    assert_eq!(
        super::step(&preview),
        "✓ batch_rename_preview  Batch rename preview (2 files):\n    a → b\n    c → d\n⏳ 1 pending: Batch Rename: 2 files"
    );
}

#[test]
fn resolve_shows_the_decision_badge_summary_and_reason() {
    let mut applied = text("Renamed 2 files:\n  a → b", false);
    applied.details = Some(json!({
        "action": "apply", "reason": "looks right",
        "label": "Batch Rename: 2 files", "sourceToolName": "batch_rename_preview",
    }));
    assert_eq!(
        super::step(&step(Some("resolve"), applied, &[])),
        "✓ resolve  Accept: [Batch Rename] 2 files — reason: looks right\n  Renamed 2 files:\n    a → b"
    );

    let mut discarded = text("Discarded: tidy. Reason: ", false);
    discarded.details = Some(json!({
        "action": "discard", "reason": "", "label": "tidy", "sourceToolName": "custom_tool",
    }));
    assert_eq!(
        super::step(&step(
            Some("resolve"),
            discarded,
            &["AST Edit: 1 replacement in 1 file"]
        )),
        "✓ resolve  Discard: [custom_tool] tidy\n  Discarded: tidy. Reason: \n⏳ 1 pending: AST Edit: 1 replacement in 1 file"
    );

    let mut failed = text("Apply failed: disk full", true);
    failed.details = Some(json!({
        "action": "apply", "reason": "go", "label": "Batch Rename: 1 file", "sourceToolName": "x",
    }));
    assert_eq!(
        super::step(&step(Some("resolve"), failed, &["Batch Rename: 1 file"])),
        "✗ resolve  Accept: [Batch Rename] 1 file — reason: go\n  Apply failed: disk full\n⏳ 1 pending: Batch Rename: 1 file"
    );
}

#[test]
fn errors_without_a_tool_show_the_message() {
    assert_eq!(
        super::step(&step(None, text("invalid JSON on line 2: eof", true), &[])),
        "✗ invalid JSON on line 2: eof"
    );
    assert_eq!(
        super::step(&step(
            Some("resolve"),
            text(
                "No pending action to resolve. Nothing to apply or discard.",
                true
            ),
            &[]
        )),
        "✗ resolve  No pending action to resolve. Nothing to apply or discard."
    );
}

#[test]
fn images_and_empty_results_render() {
    let result = ToolResult {
        content: vec![ContentBlock::image("AAAA", "image/png")],
        details: None,
        is_error: false,
    };
    assert_eq!(
        super::step(&step(Some("shot"), result, &[])),
        "✓ shot  [image: image/png]"
    );
    assert_eq!(
        super::step(&step(Some("quiet"), ToolResult::default(), &[])),
        "✓ quiet"
    );
}

#[test]
fn several_pending_actions_are_listed_newest_first() {
    assert_eq!(pending_line(&PendingSummary::default()), None);
    let summary = PendingSummary {
        count: 2,
        newest: vec![view("B: 2"), view("A: 1")],
    };
    assert_eq!(
        pending_line(&summary).unwrap(),
        "⏳ 2 pending (newest first): B: 2; A: 1"
    );
}

#[test]
fn badges_come_from_the_label() {
    assert_eq!(
        badge("Batch Rename: 2 files", "x"),
        ("Batch Rename", "2 files")
    );
    assert_eq!(badge("AST Edit: a: b", "x"), ("AST Edit", "a: b"));
    assert_eq!(badge("plain label", "tool"), ("tool", "plain label"));
    assert_eq!(badge(": odd", "tool"), ("tool", ": odd"));
}

#[test]
fn a_deep_stack_shows_the_newest_labels_and_how_many_more() {
    let summary = PendingSummary {
        count: 100_000,
        newest: ["E", "D", "C", "B", "A"].iter().map(|l| view(l)).collect(),
    };
    assert_eq!(
        pending_line(&summary).unwrap(),
        "⏳ 100000 pending (newest first): E; D; C; B; A; … and 99995 more"
    );
}
