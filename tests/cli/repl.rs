//! `xcsh repl` through a pseudo-terminal: tab completion, a preview, the
//! pending indicator in the prompt, and `apply`.

#![cfg(unix)]

use std::time::Duration;

use expectrl::{Eof, Expect, Session};

use crate::support::{Env, arg, batch_rename};

#[test]
fn preview_then_apply_round_trip() {
    round_trip(&[]);
}

#[test]
fn preview_then_apply_round_trip_with_the_pack_isolated() {
    round_trip(&["--isolate"]);
}

/// The round trip with `options` for `xcsh repl`.
fn round_trip(options: &[&str]) {
    let env = Env::new();
    env.write("draft.md", "text");
    let pack = batch_rename();
    let mut args = vec!["repl"];
    args.extend_from_slice(options);
    args.extend(["--plugin", arg(&pack)]);
    let mut command = env.command(&args);
    command.env("TERM", "xterm");
    let mut repl = Session::spawn(command).expect("spawn xcsh repl in a pty");
    repl.set_expect_timeout(Some(Duration::from_secs(30)));

    repl.expect(
        "xcsh 0.1.0: 3 tools, 1 pack loaded, 0 failed. Type help for commands, Ctrl-D to quit.",
    )
    .unwrap();
    repl.expect("xcsh> ").unwrap();

    // Tab completes the tool name.
    repl.send("batch_ren\t").unwrap();
    repl.expect("batch_rename_preview").unwrap();
    repl.send_line(r#" {"files": ["draft.md"], "rule": {"kind": "regex", "pattern": "^draft", "replacement": "final"}}"#)
        .unwrap();
    repl.expect("✓ batch_rename_preview  Batch rename preview (1 file):")
        .unwrap();
    repl.expect("draft.md → final.md").unwrap();
    repl.expect("⏳ 1 pending: Batch Rename: 1 file").unwrap();
    repl.expect("xcsh [1 pending]> ").unwrap();
    assert!(
        env.work().join("draft.md").exists(),
        "a preview changes nothing"
    );

    repl.send_line("apply ready to ship").unwrap();
    repl.expect("✓ resolve  Accept: [Batch Rename] 1 file — reason: ready to ship")
        .unwrap();
    repl.expect("Renamed 1 file:").unwrap();
    repl.expect("xcsh> ").unwrap();

    repl.send_line("exit").unwrap();
    repl.expect(Eof).unwrap();
    assert_eq!(env.files(), ["final.md"]);
    let history = std::fs::read_to_string(env.user_data_dir().join("history.txt")).unwrap();
    assert!(history.contains("apply ready to ship"), "{history}");
}

#[test]
fn leaving_with_an_action_pending_discards_it() {
    let env = Env::new();
    env.write("draft.md", "text");
    let pack = batch_rename();
    let mut command = env.command(&["repl", "--plugin", arg(&pack)]);
    command.env("TERM", "xterm");
    let mut repl = Session::spawn(command).expect("spawn xcsh repl in a pty");
    repl.set_expect_timeout(Some(Duration::from_secs(30)));
    repl.expect("xcsh> ").unwrap();
    repl.send_line(
        r#"batch_rename_preview {"files": ["draft.md"], "rule": {"kind": "prefix", "prefix": "old-"}}"#,
    )
    .unwrap();
    repl.expect("xcsh [1 pending]> ").unwrap();

    repl.send_line("exit").unwrap();
    repl.expect("1 action left pending; nothing was applied for it.")
        .unwrap();
    repl.expect(
        "warning: Discarded pending action \"Batch Rename: 1 file\": session ended without resolve",
    )
    .unwrap();
    repl.expect(Eof).unwrap();
    assert_eq!(env.files(), ["draft.md"]);
}

#[test]
fn a_tools_partial_results_show_as_it_runs() {
    let env = Env::new();
    let pack = crate::support::pack_path("fixture-hostile");
    let mut command = env.command(&["repl", "--plugin", arg(&pack)]);
    command.env("TERM", "xterm");
    let mut repl = Session::spawn(command).expect("spawn xcsh repl in a pty");
    repl.set_expect_timeout(Some(Duration::from_secs(30)));
    repl.expect("xcsh> ").unwrap();
    repl.send_line("progress {}").unwrap();
    repl.expect("… progress  step 1").unwrap();
    repl.expect("… progress  step 2").unwrap();
    repl.expect("✓ progress  done in call-1").unwrap();
    repl.expect("xcsh> ").unwrap();
    repl.send_line("exit").unwrap();
    repl.expect(Eof).unwrap();
}

#[test]
fn a_call_past_the_time_limit_times_out_and_the_repl_goes_on() {
    let env = Env::new();
    let hostile = crate::support::pack_path("fixture-hostile");
    let mut command = env.command(&["repl", "--plugin", arg(&hostile), "--tool-timeout", "0.3"]);
    command.env("TERM", "xterm");
    let mut repl = Session::spawn(command).expect("spawn xcsh repl in a pty");
    repl.set_expect_timeout(Some(Duration::from_secs(30)));
    repl.expect("xcsh> ").unwrap();
    let started = std::time::Instant::now();
    repl.send_line(r#"block {"ms": 600000}"#).unwrap();
    repl.expect("Tool block timed out after 300ms").unwrap();
    repl.expect("xcsh> ").unwrap();
    // The next line is read and answered while the first call still blocks.
    repl.send_line(r#"block {"ms": 0}"#).unwrap();
    repl.expect("woke up").unwrap();
    repl.expect("xcsh> ").unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    repl.send_line("exit").unwrap();
    repl.expect(Eof).unwrap();
}
