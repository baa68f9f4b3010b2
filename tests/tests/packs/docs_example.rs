//! The crate docs' example pack, built as a real library, loads and runs.

use std::fs;

use serde_json::json;
use tempfile::TempDir;
use xcsh_test_support::{TestSession, example_pack_path};

#[test]
fn the_docs_example_pack_loads_previews_and_applies() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("notes.txt"), "n").unwrap();
    let session = TestSession::new(dir.path(), &[example_pack_path()]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    assert_eq!(session.report.loaded[0].name, "xcsh-plugin-api");
    assert_eq!(session.report.loaded[0].tools, ["add_prefix_preview"]);

    let preview = session.call(
        "add_prefix_preview",
        json!({"files": ["notes.txt"], "prefix": "old_"}),
    );
    assert!(!preview.is_error, "{}", preview.text());
    assert!(dir.path().join("notes.txt").exists());
    assert_eq!(session.pending_labels(), ["Add Prefix: 1 file(s)"]);

    let applied = session.resolve("apply", "ok");
    assert_eq!(applied.text(), "Renamed 1 file(s).");
    assert!(dir.path().join("old_notes.txt").exists());
    assert!(!dir.path().join("notes.txt").exists());
}

#[test]
fn the_docs_example_pack_refuses_a_path_outside_the_working_directory() {
    let dir = TempDir::new().unwrap();
    let session = TestSession::new(dir.path(), &[example_pack_path()]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    let refused = session.call(
        "add_prefix_preview",
        json!({"files": ["../notes.txt"], "prefix": "old_"}),
    );
    assert!(refused.is_error);
    let outside = fs::canonicalize(dir.path())
        .unwrap()
        .parent()
        .unwrap()
        .join("notes.txt");
    assert_eq!(
        refused.text(),
        format!(
            "path ../notes.txt is outside the working directory: it resolves to {} \
             (start xcsh with --allow-outside-root to allow this)",
            outside.display()
        )
    );
    assert!(session.pending_labels().is_empty());
}
