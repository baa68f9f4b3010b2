//! xcsh's own namespace sandbox, with no `bwrap` on the `PATH` xcsh runs
//! with (`path_without_bwrap`): a hostile isolated pack kills and stops
//! its parent, leaves a daemon behind and writes xcsh's records; the agent,
//! the other pack's pending action and the records are untouched, and
//! nothing of the pack outlives the session.

use std::time::Duration;

use serde_json::json;

use super::hostile::{call, isolated, run_between, texts};
use crate::support::{Env, Output, arg, path_without_bwrap};

/// The status `xcsh tools` gives the hostile pack here.
fn status(env: &Env) -> String {
    let output = env.run(
        &[
            "tools",
            "--isolate",
            "--plugin",
            arg(&super::hostile::hostile()),
        ],
        "",
    );
    kill_parent_line(&output)
}

/// The line of `xcsh tools`'s `output` for the hostile pack's
/// `kill_parent`, which ends with the pack's sandbox status.
pub(super) fn kill_parent_line(output: &Output) -> String {
    output
        .stdout
        .lines()
        .find(|line| line.trim_start().starts_with("kill_parent"))
        .unwrap_or_else(|| panic!("{output:?}"))
        .to_owned()
}

#[test]
fn the_pack_runs_in_namespaces_with_no_bwrap_anywhere_on_path() {
    for dir in std::env::split_paths(&path_without_bwrap()) {
        assert!(!dir.join("bwrap").exists(), "{}", dir.display());
    }
    let env = Env::new();
    let line = status(&env);
    assert!(
        line.contains(", isolated, sandboxed (namespaces, Landlock ABI ")
            && line.contains(", seccomp), may write "),
        "{line}"
    );
}

#[test]
fn killing_or_stopping_its_parent_reaches_only_its_sandbox() {
    let env = Env::new();
    let output = run_between(
        &env,
        isolated(&env),
        &[call("kill_parent", json!({})), call("progress", json!({}))],
    );
    let texts = texts(&output);
    // Its parent is its sandbox's first process, pid 1 of its namespace.
    assert!(
        texts[1] == "signalled 1" || texts[1].starts_with("Tool kill_parent crashed: "),
        "{texts:?}"
    );
    assert!(texts[2].starts_with("done in "), "{texts:?}");
}

#[test]
fn nothing_the_pack_starts_outlives_the_session() {
    let env = Env::new();
    // Granted `processes`: without it the daemon is never started.
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        &format!(
            "[isolation.packs.{:?}]\ncapabilities = [\"processes\"]\n",
            arg(&super::hostile::hostile())
        ),
    );
    let marker = env.work().join("daemon-ran");
    let output = run_between(
        &env,
        isolated(&env),
        &[call("leave_daemon", json!({"text": arg(&marker)}))],
    );
    assert_eq!(texts(&output)[1], "left");
    std::thread::sleep(Duration::from_secs(3));
    assert!(!marker.exists(), "the daemon outlived the session");
}

#[test]
fn xcsh_s_records_in_the_working_directory_are_read_only_to_the_pack() {
    let env = Env::new();
    let journal = env.write(".xcsh/journal.jsonl", "{\"kept\":true}\n");
    let output = run_between(
        &env,
        isolated(&env),
        &[call(
            "plant_script",
            json!({"paths": [arg(&journal)], "script": "forged"}),
        )],
    );
    assert_eq!(
        texts(&output)[1],
        format!("{}: Read-only file system (os error 30)", journal.display())
    );
    // The agent itself goes on recording there.
    let records = std::fs::read_to_string(&journal).unwrap();
    assert!(records.starts_with("{\"kept\":true}\n"), "{records}");
    assert!(!records.contains("forged"), "{records}");
}
