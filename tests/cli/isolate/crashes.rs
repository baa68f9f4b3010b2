//! A pack that kills its process costs only its own call: the agent
//! answers with an error naming the pack and how its process ended, a
//! batch-rename action pushed earlier still applies, and the next call to
//! the crashed pack works again.

use std::time::Duration;

use serde_json::json;

use super::{Options, TestAgent, entry};
use crate::support::pack_path;

const CRASHY: &str = "fixture-crashy";

fn session() -> TestAgent {
    TestAgent::new(
        &["batch-rename", CRASHY],
        &["a.txt"],
        Options {
            timeout: Some(Duration::from_secs(2)),
            // Enough to start, far too little for crashy_alloc.
            packs: vec![(pack_path(CRASHY), entry(Some(256), Vec::new()))],
            ..Options::default()
        },
    )
}

/// Preview a rename, crash the pack with `tool`, check the answer, then
/// show nothing else was lost.
fn crash_costs_only_the_call(tool: &str, expected: &str) {
    let agent = session();
    let preview = agent.preview_suffix(&["a.txt"], "-old");
    assert!(!preview.is_error, "{}", preview.text());
    assert_eq!(agent.pending(), ["Batch Rename: 1 file"]);

    let crashed = agent.call(tool, json!({}));
    assert!(crashed.is_error);
    assert_eq!(crashed.text(), expected);
    assert_eq!(agent.pending(), ["Batch Rename: 1 file"]);

    let again = agent.call("crashy_ok", json!({}));
    assert!(!again.is_error, "{}", again.text());
    assert_eq!(again.text(), "still here");

    let applied = agent.resolve("apply", "the rename is still wanted");
    assert!(!applied.is_error, "{}", applied.text());
    assert_eq!(applied.text(), "Renamed 1 file:\n  a.txt → a-old.txt");
    assert_eq!(agent.files(), ["a-old.txt"]);
}

#[test]
fn a_segfault_is_an_error_result_and_the_session_goes_on() {
    crash_costs_only_the_call(
        "crashy_segfault",
        "Tool crashy_segfault crashed: the process of pack fixture-crashy was killed by signal SIGSEGV; the pack restarts on the next call",
    );
}

#[test]
fn an_abort_is_an_error_result_and_the_session_goes_on() {
    crash_costs_only_the_call(
        "crashy_abort",
        "Tool crashy_abort crashed: the process of pack fixture-crashy was killed by signal SIGABRT; the pack restarts on the next call",
    );
}

#[test]
fn an_exit_is_an_error_result_and_the_session_goes_on() {
    crash_costs_only_the_call(
        "crashy_exit",
        "Tool crashy_exit crashed: the process of pack fixture-crashy exited with status 3; the pack restarts on the next call",
    );
}

#[test]
fn a_call_past_the_time_limit_kills_the_process_and_says_so() {
    crash_costs_only_the_call(
        "crashy_spin",
        "Tool crashy_spin timed out after 2s; the process of pack fixture-crashy was killed; the pack restarts on the next call",
    );
}

#[test]
fn a_runaway_allocation_hits_the_memory_limit_and_is_an_error_result() {
    let agent = session();
    agent.preview_suffix(&["a.txt"], "-old");
    let crashed = agent.call("crashy_alloc", json!({}));
    assert!(crashed.is_error);
    let text = crashed.text();
    let (first, stderr) = text.split_once('\n').unwrap();
    assert_eq!(
        first,
        "Tool crashy_alloc crashed: the process of pack fixture-crashy was killed by signal SIGABRT; the pack restarts on the next call"
    );
    // The same whatever RUST_BACKTRACE says: a backtrace is not quoted.
    assert_eq!(
        stderr,
        "Its last lines on stderr:\n  memory allocation of 67108864 bytes failed"
    );
    assert_eq!(agent.call("crashy_ok", json!({})).text(), "still here");
    assert_eq!(
        agent.resolve("apply", "still wanted").text(),
        "Renamed 1 file:\n  a.txt → a-old.txt"
    );
}

#[test]
fn an_apply_that_segfaults_keeps_its_action_until_discarded() {
    let agent = session();
    agent.preview_suffix(&["a.txt"], "-old");
    let pushed = agent.call("crashy_apply_segfault", json!({}));
    assert_eq!(pushed.text(), "pushed an action whose apply segfaults");
    assert_eq!(
        agent.pending(),
        ["Crashy: segfault on apply", "Batch Rename: 1 file"]
    );

    let failed = agent.resolve("apply", "try it");
    assert!(failed.is_error);
    assert_eq!(
        failed.text(),
        "Apply failed: the process of pack fixture-crashy was killed by signal SIGSEGV during apply; the action stays pending but can no longer be applied: discard it"
    );
    assert_eq!(
        agent.pending(),
        ["Crashy: segfault on apply", "Batch Rename: 1 file"]
    );
    let again = agent.resolve("apply", "once more");
    assert!(again.is_error);
    assert_eq!(
        again.text(),
        "Apply failed: the process of pack fixture-crashy was killed by signal SIGSEGV after this action was pushed; the action stays pending but can no longer be applied: discard it"
    );

    let discarded = agent.resolve("discard", "its process is gone");
    assert!(!discarded.is_error, "{}", discarded.text());
    assert_eq!(
        discarded.text(),
        "Discarded: Crashy: segfault on apply. Reason: its process is gone"
    );
    assert_eq!(agent.pending(), ["Batch Rename: 1 file"]);

    assert_eq!(agent.call("crashy_ok", json!({})).text(), "still here");
    let applied = agent.resolve("apply", "the rename is still wanted");
    assert_eq!(applied.text(), "Renamed 1 file:\n  a.txt → a-old.txt");
    assert_eq!(agent.files(), ["a-old.txt"]);
}

#[test]
fn a_pack_that_keeps_crashing_is_disabled_and_the_others_go_on() {
    let agent = session();
    agent.preview_suffix(&["a.txt"], "-old");
    let restarts = "Tool crashy_exit crashed: the process of pack fixture-crashy exited with status 3; the pack restarts on the next call";
    assert_eq!(agent.call("crashy_exit", json!({})).text(), restarts);
    assert_eq!(agent.call("crashy_exit", json!({})).text(), restarts);
    assert_eq!(
        agent.call("crashy_exit", json!({})).text(),
        "Tool crashy_exit crashed: the process of pack fixture-crashy exited with status 3; the pack is now disabled: its process crashed 3 times within 60s"
    );
    let refused = agent.call("crashy_ok", json!({}));
    assert!(refused.is_error);
    assert_eq!(
        refused.text(),
        "Tool crashy_ok is unavailable: pack fixture-crashy was disabled after its process crashed 3 times within 60s"
    );
    assert_eq!(
        agent.resolve("apply", "fine").text(),
        "Renamed 1 file:\n  a.txt → a-old.txt"
    );
}

#[test]
fn a_crash_leaves_another_isolated_packs_actions_and_process_alone() {
    let agent = session();
    agent.preview_suffix(&["a.txt"], "-1");
    agent.call("crashy_segfault", json!({}));
    // The batch-rename process never noticed: the same one previews again.
    let second = agent.preview_suffix(&["a.txt"], "-2");
    assert!(!second.is_error, "{}", second.text());
    assert_eq!(
        agent.pending(),
        ["Batch Rename: 1 file", "Batch Rename: 1 file"]
    );
    assert_eq!(
        agent.resolve("apply", "newest").text(),
        "Renamed 1 file:\n  a.txt → a-2.txt"
    );
}
