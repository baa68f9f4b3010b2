//! `batch_rename_preview` through the host path, in-process
//! (`xcsh-pack-test`): what the model sees from preview to resolve.

use batch_rename::tools;
use xcsh_pack_test::{PREVIEW_REMINDER, PackTest, ToolChoice, json};

fn pack(files: &[&str]) -> PackTest {
    let pack = PackTest::new("batch-rename", tools).unwrap();
    for file in files {
        pack.write(file, format!("contents of {file}"));
    }
    pack
}

fn files(pack: &PackTest) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(pack.dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn preview_pushes_and_apply_renames() {
    let pack = pack(&["draft-a.md", "notes.txt"]);
    let preview = pack.call(
        "batch_rename_preview",
        json!({"files": ["draft-a.md", "notes.txt"], "rule": {"kind": "regex", "pattern": "^draft", "replacement": "final"}}),
    );
    assert!(!preview.is_error, "{}", preview.text());
    assert_eq!(
        preview.text(),
        "Batch rename preview (1 file):\n  draft-a.md → final-a.md\nUnchanged: notes.txt"
    );
    assert_eq!(pack.pending_labels(), ["Batch Rename: 1 file"]);
    let pending = pack.newest_pending().unwrap();
    assert_eq!(pending.source_tool_name, "batch_rename_preview");
    assert_eq!(
        pending.details,
        Some(
            json!({"renames": [{"from": "draft-a.md", "to": "final-a.md"}], "unchanged": ["notes.txt"]})
        )
    );
    assert_eq!(pack.take_reminders(), [PREVIEW_REMINDER]);
    assert_eq!(
        pack.tool_choice(),
        ToolChoice::Tool {
            name: "resolve".into()
        }
    );
    assert_eq!(files(&pack), ["draft-a.md", "notes.txt"]);

    let applied = pack.apply("the drafts are final");
    assert!(!applied.is_error, "{}", applied.text());
    assert_eq!(applied.text(), "Renamed 1 file:\n  draft-a.md → final-a.md");
    assert_eq!(files(&pack), ["final-a.md", "notes.txt"]);
    assert_eq!(pack.tool_choice(), ToolChoice::Auto);
}

#[test]
fn discard_renames_nothing() {
    let pack = pack(&["notes.txt"]);
    pack.call(
        "batch_rename_preview",
        json!({"files": ["notes.txt"], "rule": {"kind": "suffix", "suffix": "-old"}}),
    );
    let discarded = pack.discard("still current");
    assert_eq!(
        discarded.text(),
        "Discarded batch rename of 1 file; nothing was renamed:\n  notes.txt → notes-old.txt"
    );
    assert!(pack.pending_labels().is_empty());
    assert_eq!(files(&pack), ["notes.txt"]);
}

#[test]
fn invalid_arguments_are_refused_before_the_pack_runs() {
    let pack = pack(&["a.txt"]);
    let unknown_kind = pack.call(
        "batch_rename_preview",
        json!({"files": ["a.txt"], "rule": {"kind": "upper"}}),
    );
    assert!(unknown_kind.is_error);
    assert!(
        unknown_kind
            .text()
            .starts_with("Invalid arguments for batch_rename_preview: /rule: "),
        "{}",
        unknown_kind.text()
    );
    let extra = pack.call(
        "batch_rename_preview",
        json!({"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "x-"}, "dry_run": true}),
    );
    assert_eq!(
        extra.text(),
        "Invalid arguments for batch_rename_preview: Additional properties are not allowed ('dry_run' was unexpected)"
    );
    let no_files = pack.call(
        "batch_rename_preview",
        json!({"files": [], "rule": {"kind": "prefix", "prefix": "x-"}}),
    );
    assert_eq!(
        no_files.text(),
        "Invalid arguments for batch_rename_preview: /files: [] has less than 1 item"
    );
    assert!(pack.pending_labels().is_empty());
}

#[test]
fn a_missing_file_is_an_error_and_pushes_nothing() {
    let pack = pack(&[]);
    let result = pack.call(
        "batch_rename_preview",
        json!({"files": ["ghost.txt"], "rule": {"kind": "prefix", "prefix": "x-"}}),
    );
    assert!(result.is_error);
    assert!(result.text().contains("ghost.txt"), "{}", result.text());
    assert!(pack.pending_labels().is_empty());
    assert!(pack.take_reminders().is_empty());
}
