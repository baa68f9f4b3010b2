//! The hardening fault matrix: each hostile behaviour gets its exact
//! one-line error or report entry, the other packs still load, and the
//! session still resolves what was pending.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::json;
use tempfile::TempDir;
use xcsh_core::{
    CallLimits, PUSH_FROM_RESOLVE, PUSH_OUTSIDE_CALL, Session, ToolCall, ToolContext, ToolOutput,
};
use xcsh_loader::{HostBinding, PackLoader};
use xcsh_test_support::{TestSession, pack_path, panic_site};

/// A session with batch-rename, the hostile pack and `extra`, and one
/// pending action pushed before anything hostile happens.
fn session_with(dir: &TempDir, extra: &[PathBuf]) -> TestSession {
    let mut paths = vec![pack_path("batch-rename"), pack_path("fixture-hostile")];
    paths.extend_from_slice(extra);
    let session = TestSession::new(dir.path(), &paths);
    let pushed = session.call("push_marker", json!({"tag": "before"}));
    assert_eq!(pushed.text(), "pushed before");
    session
}

/// The action pushed before the fault is still there and resolves.
fn assert_still_resolves(session: &TestSession) {
    assert_eq!(session.pending_labels().last().unwrap(), "Marker: before");
    while session.session.store().len() > 1 {
        session.resolve("discard", "clearing");
    }
    assert_eq!(session.resolve("apply", "fine").text(), "applied before");
}

fn load_failure(bad: &str) -> (TestSession, TempDir, String) {
    let dir = TempDir::new().unwrap();
    let path = pack_path(bad);
    let session = session_with(&dir, std::slice::from_ref(&path));
    let problems = session.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let expected_prefix = format!("Failed to load tool pack {}: ", path.display());
    let cause = problems[0]
        .strip_prefix(&expected_prefix)
        .unwrap_or_else(|| panic!("{}", problems[0]))
        .to_owned();
    assert!(!cause.contains('\n'));
    assert!(session.has_tool("batch_rename_preview") && session.has_tool("push_marker"));
    (session, dir, cause)
}

#[test]
fn a_panicking_label_accessor_is_reported() {
    let (session, _dir, cause) = load_failure("fixture-panic-label");
    assert_eq!(
        cause,
        format!(
            "tool #1: label() panicked: label exploded (at {})",
            panic_site(
                "plugins/fixtures/panic-label/src/lib.rs",
                "panic!(\"label exploded\")"
            )
        )
    );
    assert_still_resolves(&session);
}

#[test]
fn a_panicking_schema_accessor_is_reported() {
    let (session, _dir, cause) = load_failure("fixture-panic-schema");
    assert_eq!(
        cause,
        format!(
            "tool #1: parameters() panicked: schema exploded (at {})",
            panic_site(
                "plugins/fixtures/panic-schema/src/lib.rs",
                "panic!(\"schema exploded\")"
            )
        )
    );
    assert_still_resolves(&session);
}

#[test]
fn an_empty_tool_list_is_reported() {
    let (session, _dir, cause) = load_failure("fixture-no-tools");
    assert_eq!(cause, "factory returned no tools");
    assert_still_resolves(&session);
}

#[test]
fn a_non_object_schema_is_reported() {
    let (session, _dir, cause) = load_failure("fixture-bad-schema");
    assert_eq!(
        cause,
        "tool #1: string_params: parameters schema must be a JSON object schema with \"type\": \"object\""
    );
    assert_still_resolves(&session);
}

#[test]
fn invalid_json_details_are_refused_in_results_and_pushes() {
    let dir = TempDir::new().unwrap();
    let session = session_with(&dir, &[pack_path("fixture-raw-abi")]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    let result = session.call("raw_bad_details", json!({"mode": "output"}));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "pack returned invalid details JSON: key must be a string at line 1 column 2"
    );
    let result = session.call("raw_bad_details", json!({"mode": "push"}));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "invalid pending action details JSON: key must be a string at line 1 column 2"
    );
    assert_eq!(session.pending_labels(), ["Marker: before"]);
    assert_still_resolves(&session);
}

#[test]
fn an_action_with_an_empty_label_is_refused_where_the_sdk_builds_it() {
    let dir = TempDir::new().unwrap();
    let session = session_with(&dir, &[]);
    let result = session.call("push_empty_label", json!({}));
    assert!(result.is_error);
    assert_eq!(result.text(), "pending action label must not be empty");
    assert_eq!(session.pending_labels(), ["Marker: before"]);
    assert_still_resolves(&session);
}

#[test]
fn a_push_with_a_blank_label_through_the_raw_abi_is_refused_by_the_host_with_the_same_message() {
    let dir = TempDir::new().unwrap();
    let session = session_with(&dir, &[pack_path("fixture-raw-abi")]);
    let result = session.call("raw_bad_details", json!({"mode": "blank_label"}));
    assert!(result.is_error);
    assert_eq!(result.text(), "pending action label must not be empty");
    assert_eq!(session.pending_labels(), ["Marker: before"]);
    assert_still_resolves(&session);
}

/// A session with the hostile and batch-rename packs, every call limited
/// to `ms` milliseconds.
fn limited_session(dir: &TempDir, ms: u64) -> Session {
    let session = Session::new(dir.path()).with_limits(CallLimits {
        time: Some(Duration::from_millis(ms)),
        ..CallLimits::default()
    });
    let report = PackLoader::new().load(
        &session,
        &HostBinding::for_session(&session),
        &[pack_path("fixture-hostile"), pack_path("batch-rename")],
    );
    assert!(report.is_clean(), "{:?}", report.problems());
    session
}

fn labels(session: &Session) -> Vec<String> {
    session
        .store()
        .summary(usize::MAX)
        .newest
        .into_iter()
        .map(|view| view.label)
        .collect()
}

#[test]
fn a_push_from_a_thread_the_tool_left_behind_is_refused() {
    let dir = TempDir::new().unwrap();
    let session = session_with(&dir, &[]);
    let result = session.call("push_later", json!({"tag": "late"}));
    assert_eq!(result.text(), "spawned");
    let outcome = session.call("late_push_outcome", json!({"tag": "late", "ms": 10_000}));
    assert_eq!(
        outcome.text(),
        PUSH_OUTSIDE_CALL,
        "the pack sees the refusal"
    );
    assert_eq!(session.pending_labels(), ["Marker: before"]);
    assert_eq!(
        session.session.take_messages().len(),
        1,
        "no reminder for the refused push"
    );
    assert_still_resolves(&session);
}

/// An action belongs to the call that previewed it: code run by an apply
/// or a reject (here naming its push after a tool the policy trusts) can
/// push nothing, and the pack is told why.
#[test]
fn a_push_from_inside_an_apply_or_a_reject_is_refused() {
    for (action, tag) in [("discard", "from-reject"), ("apply", "from-apply")] {
        let dir = TempDir::new().unwrap();
        let session = session_with(&dir, &[]);
        let pushed = session.call("push_from_resolve", json!({"tag": tag}));
        assert_eq!(pushed.text(), format!("pushed sneaky {tag}"));
        let resolved = session.resolve(action, "go");
        assert!(!resolved.is_error, "{}", resolved.text());
        let outcome = session.call("late_push_outcome", json!({"tag": tag, "ms": 10_000}));
        assert_eq!(outcome.text(), PUSH_FROM_RESOLVE);
        assert_eq!(session.pending_labels(), ["Marker: before"], "{action}");
        assert_still_resolves(&session);
    }
}

/// The attack of issue 12: a call overruns the limit, its thread pushes
/// later (while another call runs), and the next `apply` must still apply
/// the rename previewed before it.
#[test]
fn a_push_after_the_call_timed_out_never_reaches_the_stack() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.txt"), "a").unwrap();
    let session = limited_session(&dir, 400);
    let call = |name: &str, arguments| session.execute(&ToolCall::new("t", name, arguments));
    let preview = call(
        "batch_rename_preview",
        json!({"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "new_"}}),
    );
    assert!(!preview.is_error, "{}", preview.text());

    let timed_out = call("block_then_push", json!({"tag": "sneaky", "ms": 700}));
    assert_eq!(
        timed_out.text(),
        "Tool block_then_push timed out after 400ms"
    );
    // A later call is (most likely) running when the abandoned thread
    // pushes, 300 ms on; either way the push is refused.
    assert_eq!(call("block", json!({"ms": 350})).text(), "woke up");
    let outcome = call("late_push_outcome", json!({"tag": "sneaky", "ms": 10_000}));
    assert_eq!(outcome.text(), PUSH_OUTSIDE_CALL);
    assert_eq!(labels(&session), ["Batch Rename: 1 file"]);

    let applied = call("resolve", json!({"action": "apply", "reason": "ok"}));
    assert!(!applied.is_error, "{}", applied.text());
    assert!(fs::exists(dir.path().join("new_a.txt")).unwrap());
    assert!(!session.store().has_pending());
}

#[test]
fn a_blocking_execute_times_out_and_the_session_goes_on() {
    let dir = TempDir::new().unwrap();
    let session = limited_session(&dir, 200);
    let call = |name: &str, arguments| session.execute(&ToolCall::new("t", name, arguments));
    call("push_marker", json!({"tag": "before"}));

    let started = Instant::now();
    let result = call("block", json!({"ms": 3000}));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "gave up at the limit"
    );
    assert!(result.is_error);
    assert_eq!(result.text(), "Tool block timed out after 200ms");

    let result = call("wait_for_cancel", json!({"ms": 3000}));
    assert_eq!(result.text(), "Tool wait_for_cancel timed out after 200ms");

    // Calls under the limit still work, on their own threads.
    assert_eq!(call("block", json!({"ms": 1})).text(), "woke up");
    let applied = call("resolve", json!({"action": "apply", "reason": "ok"}));
    assert_eq!(applied.text(), "applied before");
}

#[test]
fn an_apply_or_reject_that_never_returns_is_bounded() {
    let dir = TempDir::new().unwrap();
    let session = limited_session(&dir, 200);
    let call = |name: &str, arguments| session.execute(&ToolCall::new("t", name, arguments));
    call("push_marker", json!({"tag": "before"}));
    call("push_stuck", json!({"tag": "s"}));

    let started = Instant::now();
    let applied = call("resolve", json!({"action": "apply", "reason": "go"}));
    assert!(started.elapsed() < Duration::from_secs(2));
    assert!(applied.is_error);
    assert_eq!(applied.text(), "Apply failed: apply timed out after 200ms");
    assert_eq!(labels(&session), ["Stuck: s", "Marker: before"]);

    let discarded = call("resolve", json!({"action": "discard", "reason": "no"}));
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(discarded.is_error);
    assert_eq!(
        discarded.text(),
        "Discard cleanup failed: reject timed out after 200ms"
    );
    assert_eq!(labels(&session), ["Marker: before"]);
    let applied = call("resolve", json!({"action": "apply", "reason": "ok"}));
    assert_eq!(applied.text(), "applied before");
}

#[test]
fn an_over_cap_pack_result_is_truncated_with_the_note() {
    let dir = TempDir::new().unwrap();
    let session = Session::new(dir.path()).with_limits(CallLimits {
        time: None,
        result_bytes: Some(1000),
    });
    let report = xcsh_loader::load_packs(&session, &[pack_path("fixture-hostile")]);
    assert!(report.is_clean(), "{:?}", report.problems());
    let result = session.execute(&ToolCall::new("t", "big_output", json!({"bytes": 5000})));
    assert!(!result.is_error);
    assert_eq!(result.content.len(), 2);
    assert_eq!(result.content[0].as_text().unwrap(), "x".repeat(1000));
    assert_eq!(
        result.content[1].as_text().unwrap(),
        "[Result truncated: 5000 bytes, over the 1000-byte limit]"
    );
    let fits = session.execute(&ToolCall::new("t", "big_output", json!({"bytes": 1000})));
    assert_eq!(fits.text(), "x".repeat(1000));
}

#[test]
fn cancellation_reaches_a_running_pack_tool() {
    let dir = TempDir::new().unwrap();
    let session = TestSession::new(dir.path(), &[pack_path("fixture-hostile")]);
    let context = ToolContext::new("c", dir.path());
    let token = context.cancellation().clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        token.cancel();
    });
    let result = session.session.execute_with(
        &ToolCall::new("c", "wait_for_cancel", json!({"ms": 10_000})),
        context,
    );
    canceller.join().unwrap();
    assert!(result.is_error);
    assert_eq!(result.text(), "stopped: cancelled by the host");
}

#[test]
fn progress_reports_arrive_as_they_come() {
    let dir = TempDir::new().unwrap();
    let session = TestSession::new(dir.path(), &[pack_path("fixture-hostile")]);
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&seen);
    let context = ToolContext::new("call-9", dir.path()).with_progress(std::sync::Arc::new(
        move |partial: &ToolOutput| sink.lock().unwrap().push(partial.clone()),
    ));
    let result = session
        .session
        .execute_with(&ToolCall::new("call-9", "progress", json!({})), context);
    assert_eq!(result.text(), "done in call-9");
    assert_eq!(
        *seen.lock().unwrap(),
        [ToolOutput::text("step 1"), ToolOutput::text("step 2")]
    );
}

/// Broken library files: truncated, text, another architecture, another
/// program's library. Each is one line; the good packs load.
#[test]
fn broken_library_files_are_reported_one_line_each() {
    let dir = TempDir::new().unwrap();
    let good = fs::read(pack_path("batch-rename")).unwrap();
    let truncated = dir.path().join("libtruncated.so");
    fs::write(&truncated, &good[..good.len() / 3]).unwrap();
    // Cut short with its section table dropped, so the headers parse and
    // only the segments reach past the end.
    let cut = dir.path().join("libcut.so");
    let mut cut_bytes = good[..32 * 1024].to_vec();
    cut_bytes[0x28..0x30].fill(0); // e_shoff
    cut_bytes[0x3C..0x40].fill(0); // e_shnum, e_shstrndx
    fs::write(&cut, &cut_bytes).unwrap();
    let text = dir.path().join("libtext.so");
    fs::write(&text, "#!/bin/sh\necho not a library\n").unwrap();
    let foreign = dir.path().join("libforeign.so");
    let mut bytes = good.clone();
    // ELF e_machine (offset 18, little endian): 0x00B7 is AArch64, 0x003E
    // x86-64. Either way, not this machine's unless it is the other one.
    let other = if cfg!(target_arch = "aarch64") {
        0x3Eu8
    } else {
        0xB7u8
    };
    bytes[18] = other;
    bytes[19] = 0;
    fs::write(&foreign, bytes).unwrap();
    let other_program = [
        "/lib/x86_64-linux-gnu/libz.so.1",
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/lib/aarch64-linux-gnu/libz.so.1",
        "/usr/lib/aarch64-linux-gnu/libz.so.1",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
    .expect("zlib is on this machine (git needs it)");

    let session = TestSession::new(
        dir.path(),
        &[
            truncated.clone(),
            cut.clone(),
            text.clone(),
            pack_path("batch-rename"),
            foreign.clone(),
            other_program.clone(),
        ],
    );
    let problems = session.problems();
    assert_eq!(problems.len(), 5, "{problems:#?}");
    let line = |path: &PathBuf, cause: &str| {
        format!("Failed to load tool pack {}: {cause}", path.display())
    };
    assert!(
        problems[0].starts_with(&line(&truncated, "corrupt or truncated library: ")),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].starts_with(&line(
            &cut,
            &format!(
                "truncated library: {} bytes, its headers need ",
                cut_bytes.len()
            )
        )),
        "{}",
        problems[1]
    );
    let problems = &problems[1..];
    assert_eq!(
        problems[1],
        line(&text, "not a shared library: unrecognised file format")
    );
    let (found, host) = if cfg!(target_arch = "aarch64") {
        ("X86_64", "Aarch64")
    } else {
        ("Aarch64", "X86_64")
    };
    assert_eq!(
        problems[2],
        line(&foreign, &format!("built for {found}, this host is {host}"))
    );
    assert_eq!(
        problems[3],
        format!(
            "Failed to load tool pack {}: not an xcsh tool pack: no root module (symbol _1as_0lib_1header_0root_bmodule_bloader); add xcsh_plugin_api::export_tool_pack!(your_factory); to the crate's src/lib.rs and rebuild it",
            other_program.display()
        )
    );
    assert_eq!(session.report.loaded.len(), 1);
    assert!(session.has_tool("batch_rename_preview"));
}
