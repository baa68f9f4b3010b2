//! The seed scenarios give the same results in-process and isolated: one
//! test runs them in both modes and compares every step, and checks the
//! steps' exact texts once.

use std::fs;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use xcsh_core::{ToolCall, ToolContext, ToolOutput};

use super::{Mode, Options, TestAgent};

/// What one step showed: result, pending stack and files.
#[derive(Debug, PartialEq)]
pub(super) struct Step {
    pub(super) what: &'static str,
    is_error: bool,
    text: String,
    details: Option<Value>,
    pending: Vec<String>,
    files: Vec<String>,
}

fn scenarios(mode: Mode) -> Vec<Step> {
    scenarios_with(&["batch-rename", "fixture-hostile"], mode)
}

/// The seed scenarios over `packs`, which offer `batch_rename_preview` and
/// `push_marker` between them.
pub(super) fn scenarios_with(packs: &[&str], mode: Mode) -> Vec<Step> {
    let agent = TestAgent::new(
        packs,
        &["a.txt", "b.txt", "c.txt"],
        Options {
            mode,
            ..Options::default()
        },
    );
    let mut steps = Vec::new();
    let mut record = |what, result: xcsh_core::ToolResult| {
        steps.push(Step {
            what,
            is_error: result.is_error,
            text: result.text(),
            details: result.details,
            pending: agent.pending(),
            files: agent.files(),
        });
    };
    // preview, then apply
    record("preview", agent.preview_suffix(&["a.txt"], "-1"));
    record("apply", agent.resolve("apply", "go"));
    // discard with reject code (batch rename has one)
    record("preview to discard", agent.preview_suffix(&["b.txt"], "-x"));
    record("discard with reject", agent.resolve("discard", "not now"));
    // discard without reject code
    record(
        "push marker",
        agent.call("push_marker", json!({"tag": "m"})),
    );
    record("discard without reject", agent.resolve("discard", "no"));
    // LIFO over two actions
    record("first of two", agent.preview_suffix(&["b.txt"], "-2"));
    record(
        "second of two",
        agent.call("push_marker", json!({"tag": "top"})),
    );
    record("apply newest", agent.resolve("apply", "top first"));
    record("apply older", agent.resolve("apply", "then the rename"));
    // a failing apply keeps the action
    record("preview to block", agent.preview_suffix(&["c.txt"], "-3"));
    fs::write(agent.dir.path().join("c-3.txt"), "in the way").unwrap();
    record("failing apply", agent.resolve("apply", "try"));
    fs::remove_file(agent.dir.path().join("c-3.txt")).unwrap();
    record("apply after unblocking", agent.resolve("apply", "again"));
    // invalid arguments, unknown tools, nothing pending
    record(
        "invalid arguments",
        agent.call("batch_rename_preview", json!({"files": ["a.txt"]})),
    );
    record("nothing pending", agent.resolve("apply", "nothing"));
    record(
        "invalid resolve",
        agent.call("resolve", json!({"action": "maybe", "reason": "?"})),
    );
    steps
}

#[test]
fn the_seed_scenarios_match_in_process_and_isolated() {
    let in_process = scenarios(Mode::InProcess);
    let isolated = scenarios(Mode::Isolated);
    for (a, b) in in_process.iter().zip(&isolated) {
        assert_eq!(a, b, "step {:?} differs between the modes", a.what);
    }
    assert_eq!(in_process.len(), isolated.len());

    let text = |what: &str| {
        let step = isolated.iter().find(|s| s.what == what).unwrap();
        (step.is_error, step.text.as_str(), step.pending.clone())
    };
    let rename = vec!["Batch Rename: 1 file".to_owned()];
    assert_eq!(
        text("preview"),
        (
            false,
            "Batch rename preview (1 file):\n  a.txt → a-1.txt",
            rename.clone()
        )
    );
    assert_eq!(
        text("apply"),
        (false, "Renamed 1 file:\n  a.txt → a-1.txt", vec![])
    );
    assert_eq!(
        text("discard with reject"),
        (
            false,
            "Discarded batch rename of 1 file; nothing was renamed:\n  b.txt → b-x.txt",
            vec![]
        )
    );
    assert_eq!(
        text("discard without reject"),
        (false, "Discarded: Marker: m. Reason: no", vec![])
    );
    assert_eq!(
        text("second of two").2,
        ["Marker: top", "Batch Rename: 1 file"]
    );
    assert_eq!(text("apply newest"), (false, "applied top", rename.clone()));
    assert_eq!(
        text("apply older"),
        (false, "Renamed 1 file:\n  b.txt → b-2.txt", vec![])
    );
    assert_eq!(
        text("failing apply"),
        (
            true,
            "Apply failed: refusing to overwrite c-3.txt: it exists now",
            rename
        )
    );
    assert_eq!(
        text("apply after unblocking"),
        (false, "Renamed 1 file:\n  c.txt → c-3.txt", vec![])
    );
    assert_eq!(
        text("invalid arguments"),
        (
            true,
            "Invalid arguments for batch_rename_preview: \"rule\" is a required property",
            vec![]
        )
    );
    assert_eq!(
        text("nothing pending"),
        (
            true,
            "No pending action to resolve. Nothing to apply or discard.",
            vec![]
        )
    );
    assert!(text("invalid resolve").0);
    let last = isolated.last().unwrap();
    assert_eq!(last.files, ["a-1.txt", "b-2.txt", "c-3.txt"]);
}

/// Progress reports and cancellation cross the process boundary.
fn progress_and_cancellation(mode: Mode) -> (Vec<String>, String, String) {
    let agent = TestAgent::new(
        &["fixture-hostile"],
        &[],
        Options {
            mode,
            ..Options::default()
        },
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let context = ToolContext::new("p-1", agent.dir.path()).with_progress(Arc::new(
        move |partial: &ToolOutput| {
            sink.lock()
                .unwrap()
                .push(partial.content[0].as_text().unwrap().to_owned());
        },
    ));
    let done = agent
        .agent
        .session
        .execute_with(&ToolCall::new("p-1", "progress", json!({})), context);

    let context = ToolContext::new("c-1", agent.dir.path());
    let token = context.cancellation().clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        token.cancel();
    });
    let cancelled = agent.agent.session.execute_with(
        &ToolCall::new("c-1", "wait_for_cancel", json!({"ms": 20_000})),
        context,
    );
    canceller.join().unwrap();
    let seen = seen.lock().unwrap().clone();
    (seen, done.text(), cancelled.text())
}

#[test]
fn progress_and_cancellation_cross_to_an_isolated_pack() {
    let isolated = progress_and_cancellation(Mode::Isolated);
    assert_eq!(
        isolated,
        (
            vec!["step 1".to_owned(), "step 2".to_owned()],
            "done in p-1".to_owned(),
            "stopped: cancelled by the host".to_owned()
        )
    );
    assert_eq!(progress_and_cancellation(Mode::InProcess), isolated);
}

/// The load report's lines for packs that fail to load, in one mode.
fn load_problems(mode: Mode) -> Vec<String> {
    let dir = tempfile::TempDir::new().unwrap();
    let policy = xcsh_sources::RunPolicy {
        isolation: xcsh_isolate::IsolationPolicy {
            all: mode == Mode::Isolated,
            host_exe: Some(crate::support::XCSH.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let packs = [
        "fixture-panic-factory",
        "fixture-not-a-pack",
        "fixture-no-tools",
        "fixture-conflict-a",
        "fixture-conflict-b",
    ]
    .map(crate::support::pack_path);
    let agent = xcsh_agent::Agent::start(
        dir.path(),
        xcsh_sources::Discovery {
            packs: packs.to_vec(),
            from_project: Vec::new(),
            warnings: Vec::new(),
        },
        &policy,
    )
    .unwrap();
    agent.problems()
}

#[test]
fn load_failures_and_conflicts_read_the_same_isolated() {
    let in_process = load_problems(Mode::InProcess);
    assert_eq!(in_process.len(), 4, "{in_process:#?}");
    assert_eq!(load_problems(Mode::Isolated), in_process);
}

#[test]
fn calls_to_one_isolated_pack_run_concurrently() {
    let agent = TestAgent::new(&["fixture-hostile"], &[], Options::default());
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        let blocked = scope.spawn(|| agent.call("block", json!({"ms": 1500})));
        std::thread::sleep(Duration::from_millis(100));
        let pushed = agent.call("push_marker", json!({"tag": "beside"}));
        assert_eq!(pushed.text(), "pushed beside");
        assert!(
            started.elapsed() < Duration::from_millis(1200),
            "the second call waited for the first: {:?}",
            started.elapsed()
        );
        assert_eq!(agent.pending(), ["Marker: beside"]);
        assert_eq!(blocked.join().unwrap().text(), "woke up");
    });
}

/// The first call reads the pipe while the second waits; when the first
/// ends, the second must read its own reply (nobody else reads while a
/// call is out).
#[test]
fn a_call_still_out_when_the_reading_call_ends_gets_its_reply() {
    let agent = TestAgent::new(&["fixture-hostile"], &[], Options::default());
    // The pack's process runs before the two calls start.
    assert_eq!(agent.call("block", json!({"ms": 1})).text(), "woke up");
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        let first = scope.spawn(|| agent.call("block", json!({"ms": 300})));
        std::thread::sleep(Duration::from_millis(100));
        let second = scope.spawn(|| agent.call("block", json!({"ms": 900})));
        assert_eq!(first.join().unwrap().text(), "woke up");
        assert_eq!(second.join().unwrap().text(), "woke up");
    });
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the second reply waited: {:?}",
        started.elapsed()
    );
    assert_eq!(agent.call("block", json!({"ms": 1})).text(), "woke up");
}
