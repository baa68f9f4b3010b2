//! The batch-rename pack through a whole session: preview, resolve, steering.

use std::fs;
use std::path::Path;

use serde_json::json;
use tempfile::TempDir;
use xcsh_core::{PREVIEW_REMINDER, ProviderCapabilities, ToolChoice};
use xcsh_test_support::{TestSession, pack_path};

fn workspace(files: &[&str]) -> TempDir {
    let dir = TempDir::new().unwrap();
    for file in files {
        fs::write(dir.path().join(file), format!("contents of {file}")).unwrap();
    }
    dir
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn session(dir: &TempDir) -> TestSession {
    let session = TestSession::new(dir.path(), &[pack_path("batch-rename")]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    session
}

fn suffix_preview(session: &TestSession, files: &[&str], suffix: &str) -> xcsh_core::ToolResult {
    session.call(
        "batch_rename_preview",
        json!({"files": files, "rule": {"kind": "suffix", "suffix": suffix}}),
    )
}

#[test]
fn preview_then_apply_renames_the_files() {
    let dir = workspace(&["a.txt", "b.txt"]);
    let session = session(&dir);
    let preview = session.call(
        "batch_rename_preview",
        json!({"files": ["a.txt", "b.txt"], "rule": {"kind": "regex", "pattern": "\\.txt$", "replacement": ".md"}}),
    );
    assert!(!preview.is_error, "{}", preview.text());
    assert_eq!(
        preview.text(),
        "Batch rename preview (2 files):\n  a.txt → a.md\n  b.txt → b.md"
    );
    assert_eq!(
        names(dir.path()),
        ["a.txt", "b.txt"],
        "a preview changes nothing"
    );
    assert_eq!(session.pending_labels(), ["Batch Rename: 2 files"]);
    let top = session.session.store().peek().unwrap();
    assert_eq!(top.action().source_tool_name(), "batch_rename_preview");

    let applied = session.resolve("apply", "the user asked for markdown");
    assert!(!applied.is_error, "{}", applied.text());
    assert_eq!(
        applied.text(),
        "Renamed 2 files:\n  a.txt → a.md\n  b.txt → b.md"
    );
    assert_eq!(names(dir.path()), ["a.md", "b.md"]);
    assert_eq!(
        fs::read_to_string(dir.path().join("a.md")).unwrap(),
        "contents of a.txt"
    );
    let details = applied.details.unwrap();
    assert_eq!(details["action"], "apply");
    assert_eq!(details["sourceToolName"], "batch_rename_preview");
    assert_eq!(details["label"], "Batch Rename: 2 files");
    assert_eq!(details["sourceResultDetails"]["renamed"][0], "a.txt → a.md");
    assert!(!session.session.store().has_pending());
}

#[test]
fn discard_leaves_the_files_and_returns_the_reject_text() {
    let dir = workspace(&["a.txt"]);
    let session = session(&dir);
    suffix_preview(&session, &["a.txt"], "-old");
    let discarded = session.resolve("discard", "wrong suffix");
    assert!(!discarded.is_error);
    assert_eq!(
        discarded.text(),
        "Discarded batch rename of 1 file; nothing was renamed:\n  a.txt → a-old.txt"
    );
    assert_eq!(discarded.details.unwrap()["reason"], "wrong suffix");
    assert_eq!(names(dir.path()), ["a.txt"]);
    assert!(!session.session.store().has_pending());
}

#[test]
fn two_previews_resolve_newest_first() {
    let dir = workspace(&["a.txt", "b.txt"]);
    let session = session(&dir);
    suffix_preview(&session, &["a.txt"], "-1");
    suffix_preview(&session, &["b.txt"], "-2");
    assert_eq!(
        session.pending_labels(),
        ["Batch Rename: 1 file", "Batch Rename: 1 file"]
    );
    let first = session.resolve("apply", "newest");
    assert_eq!(first.text(), "Renamed 1 file:\n  b.txt → b-2.txt");
    assert_eq!(names(dir.path()), ["a.txt", "b-2.txt"]);
    let second = session.resolve("discard", "older");
    assert!(
        second.text().contains("a.txt → a-1.txt"),
        "{}",
        second.text()
    );
    assert_eq!(names(dir.path()), ["a.txt", "b-2.txt"]);
}

#[test]
fn a_push_forces_resolve_and_queues_the_reminder() {
    let dir = workspace(&["a.txt"]);
    let session = session(&dir);
    let caps = ProviderCapabilities::default();
    assert_eq!(session.session.tool_choice(caps), ToolChoice::Auto);
    suffix_preview(&session, &["a.txt"], "-x");
    assert_eq!(
        session.session.tool_choice(caps),
        ToolChoice::Tool {
            name: "resolve".into()
        }
    );
    let messages = session.session.take_messages();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].text, PREVIEW_REMINDER);
    assert!(messages[0].hidden);
    session.resolve("apply", "ok");
    assert_eq!(session.session.tool_choice(caps), ToolChoice::Auto);
}

#[test]
fn preview_errors_push_nothing() {
    let dir = workspace(&["a1.txt", "a2.txt", "b.txt"]);
    let session = session(&dir);
    let cases = [
        (
            json!({"files": ["a1.txt", "gone.txt"], "rule": {"kind": "prefix", "prefix": "x"}}),
            "gone.txt: no such file",
        ),
        (
            json!({"files": ["a1.txt", "a2.txt"], "rule": {"kind": "regex", "pattern": "\\d", "replacement": ""}}),
            "a1.txt and a2.txt would both be renamed to a.txt",
        ),
        (
            json!({"files": ["a1.txt"], "rule": {"kind": "regex", "pattern": "a1", "replacement": "b"}}),
            "a1.txt: b.txt already exists",
        ),
        (
            json!({"files": ["a1.txt"], "rule": {"kind": "regex", "pattern": "(", "replacement": ""}}),
            "invalid regex pattern: error: unclosed group",
        ),
    ];
    for (arguments, message) in cases {
        let result = session.call("batch_rename_preview", arguments);
        assert!(result.is_error);
        assert_eq!(result.text(), message);
    }
    assert!(!session.session.store().has_pending());
    assert_eq!(names(dir.path()), ["a1.txt", "a2.txt", "b.txt"]);
}

#[test]
fn invalid_arguments_are_refused_before_pack_code_runs() {
    let dir = workspace(&["a.txt"]);
    let session = session(&dir);
    let result = session.call("batch_rename_preview", json!({"files": ["a.txt"]}));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Invalid arguments for batch_rename_preview: \"rule\" is a required property"
    );
    let result = session.call(
        "batch_rename_preview",
        json!({"files": [], "rule": {"kind": "prefix", "prefix": "x"}}),
    );
    assert!(result.is_error);
    assert!(
        result
            .text()
            .starts_with("Invalid arguments for batch_rename_preview: /files: []"),
        "{}",
        result.text()
    );
    assert!(!session.session.store().has_pending());
}

#[test]
fn apply_refuses_to_overwrite_and_keeps_the_action_pending() {
    let dir = workspace(&["a.txt", "b.txt"]);
    let session = session(&dir);
    suffix_preview(&session, &["a.txt", "b.txt"], "-new");
    fs::write(dir.path().join("b-new.txt"), "made after the preview").unwrap();

    let failed = session.resolve("apply", "go");
    assert!(failed.is_error);
    assert_eq!(
        failed.text(),
        "Apply failed: refusing to overwrite b-new.txt: it exists now"
    );
    assert_eq!(session.pending_labels(), ["Batch Rename: 2 files"]);
    assert_eq!(names(dir.path()), ["a.txt", "b-new.txt", "b.txt"]);
    assert_eq!(
        fs::read_to_string(dir.path().join("b-new.txt")).unwrap(),
        "made after the preview"
    );

    fs::remove_file(dir.path().join("b-new.txt")).unwrap();
    let applied = session.resolve("apply", "the blocking file is gone");
    assert!(!applied.is_error, "{}", applied.text());
    assert_eq!(names(dir.path()), ["a-new.txt", "b-new.txt"]);
}

#[test]
fn pushing_without_a_store_gives_the_documented_error() {
    let dir = workspace(&["a.txt"]);
    let session = TestSession::without_store(dir.path(), &[pack_path("batch-rename")]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    let result = suffix_preview(&session, &["a.txt"], "-x");
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Pending action store unavailable for custom tools in this runtime."
    );
    assert_eq!(names(dir.path()), ["a.txt"]);
}

#[test]
fn a_pending_action_outlives_its_session_binding_safely() {
    // The binding holds the store weakly: once the session is gone, pushes
    // fail cleanly instead of reaching a dead store.
    let dir = workspace(&["a.txt"]);
    let first = session(&dir);
    let tool = first
        .session
        .tools()
        .into_iter()
        .find(|t| t.name() == "batch_rename_preview")
        .unwrap();
    drop(first);
    let context = xcsh_core::ToolContext::new("late", dir.path());
    let err = tool
        .execute(
            json!({"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "x"}}),
            &context,
        )
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Pending action store unavailable for custom tools in this runtime."
    );
}
