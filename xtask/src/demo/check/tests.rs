use std::process::{Command, ExitStatus};

use super::*;

const SCRIPT: &str = include_str!("../../../../demo/rename.jsonl");

/// What docs/usage.md shows `cargo demo` printing.
const GOOD_STDOUT: &str = "\
Loaded tool pack batch-rename 0.1.0 from /x/libbatch_rename.so: batch_rename_preview
✓ batch_rename_preview  Batch rename preview (2 files):
⏳ 1 pending: Batch Rename: 2 files
✓ resolve  Accept: [Batch Rename] 2 files — reason: the drafts are final
✓ batch_rename_preview  Batch rename preview (1 file):
⏳ 1 pending: Batch Rename: 1 file
✓ resolve  Discard: [Batch Rename] 1 file — reason: the notes are still current
";

fn exit(code: i32) -> ExitStatus {
    Command::new("sh")
        .args(["-c", &format!("exit {code}")])
        .status()
        .expect("sh runs")
}

fn expected() -> Vec<String> {
    EXPECTED_FILES
        .iter()
        .map(|name| (*name).to_owned())
        .collect()
}

fn verdict(status: ExitStatus, stdout: &str, stderr: &str, files: &[String]) -> String {
    match check(&Outcome {
        status,
        stdout,
        stderr,
        calls: count_calls(SCRIPT),
        files,
    }) {
        Ok(()) => "ok".to_owned(),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_demo_script_makes_four_calls() {
    assert_eq!(count_calls(SCRIPT), 4);
}

#[test]
fn the_documented_session_passes() {
    assert_eq!(verdict(exit(0), GOOD_STDOUT, "", &expected()), "ok");
}

#[test]
fn the_line_naming_where_the_journal_went_is_all_a_session_may_log() {
    let notice = "warning: /tmp/xcsh-demo-1 is not a trusted directory, so nothing is written in it: this session's journal is kept in /home/u/.local/share/xcsh/journals/xcsh-demo-1-00ff.jsonl (xcsh journal there shows it; xcsh trust keeps it in the project)\n";
    assert_eq!(verdict(exit(0), GOOD_STDOUT, notice, &expected()), "ok");
    assert_eq!(
        redirected_journal(notice),
        Some("/home/u/.local/share/xcsh/journals/xcsh-demo-1-00ff.jsonl".into())
    );
    let more = format!("{notice}warning: something else\n");
    assert_eq!(
        verdict(exit(0), GOOD_STDOUT, &more, &expected()),
        "demo failed: the session logged \"warning: something else\""
    );
    assert_eq!(redirected_journal("warning: something else\n"), None);
}

#[test]
fn a_missing_pack_fails_the_demo() {
    // What a fresh clone printed when the pack's cdylib was never built.
    let stderr =
        "warning: Plugin path not found: /x/target/debug/libbatch_rename.so (from --plugin)\n";
    let stdout = "✗ batch_rename_preview  Unknown tool: batch_rename_preview\n";
    let files = vec![
        "draft-intro.md".to_owned(),
        "draft-usage.md".to_owned(),
        "notes.txt".to_owned(),
    ];
    assert_eq!(
        verdict(exit(0), stdout, stderr, &files),
        "demo failed: the session logged \"warning: Plugin path not found: /x/target/debug/libbatch_rename.so (from --plugin)\""
    );
    assert_eq!(
        verdict(exit(0), stdout, "", &files),
        "demo failed: a call ended in an error: \"✗ batch_rename_preview  Unknown tool: batch_rename_preview\""
    );
}

#[test]
fn a_failing_exit_status_fails_the_demo() {
    assert_eq!(
        verdict(exit(1), GOOD_STDOUT, "", &expected()),
        "demo failed: xcsh run exited with exit status: 1"
    );
}

#[test]
fn a_call_missing_from_the_output_fails_the_demo() {
    let short: String = GOOD_STDOUT
        .lines()
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        verdict(exit(0), &short, "", &expected()),
        "demo failed: 1 of the script's 4 calls succeeded"
    );
}

#[test]
fn files_other_than_the_documented_ones_fail_the_demo() {
    let files = vec!["final-intro.md".to_owned(), "final-usage.md".to_owned()];
    assert_eq!(
        verdict(exit(0), GOOD_STDOUT, "", &files),
        "demo failed: the files are \"final-intro.md final-usage.md\", expected \"final-intro.md final-usage.md notes.txt\""
    );
}
