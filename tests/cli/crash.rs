//! A pack that kills the agent is named on the way down: the last line on
//! stderr says which pack, which tool or action, and which signal, and the
//! process still dies of that signal.

#![cfg(unix)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::process::ExitStatusExt as _;
use std::process::Stdio;

use serde_json::json;
use xcsh_loader::ISOLATION_HINT;

use crate::support::{Env, arg, canonical, pack_path};

/// Signal numbers (the same on Linux and macOS).
const SIGSEGV: i32 = 11;
const SIGABRT: i32 = 6;

/// Runs `calls` through `xcsh run` with the crashy pack; returns the signal
/// the process died of, its stdout and the last line of its stderr.
fn run_crashy(calls: &[serde_json::Value]) -> (Option<i32>, String, String) {
    let env = Env::new();
    let pack = pack_path("fixture-crashy");
    let script: String = calls.iter().map(|call| format!("{call}\n")).collect();
    let script_path = env.write("calls.jsonl", &script);
    let output = env
        .command(&["run", "--plugin", arg(&pack), arg(&script_path)])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    let last = stderr.lines().last().unwrap_or_default().to_owned();
    (
        output.status.signal(),
        String::from_utf8(output.stdout).unwrap(),
        last,
    )
}

/// The report's exact text.
fn report(signal: &str, doing: &str) -> String {
    format!(
        "fatal: tool pack fixture-crashy 0.1.0 ({}) crashed the agent with {signal} while {doing} {ISOLATION_HINT}",
        canonical(&pack_path("fixture-crashy")).display()
    )
}

#[test]
fn a_segfaulting_tool_is_named_and_the_agent_dies_of_sigsegv() {
    let (signal, _, last) = run_crashy(&[json!({"tool": "crashy_segfault"})]);
    assert_eq!(signal, Some(SIGSEGV));
    assert_eq!(last, report("SIGSEGV", "running tool crashy_segfault"));
}

#[test]
fn an_aborting_tool_is_named_and_the_agent_dies_of_sigabrt() {
    let (signal, _, last) = run_crashy(&[json!({"tool": "crashy_abort"})]);
    assert_eq!(signal, Some(SIGABRT));
    assert_eq!(last, report("SIGABRT", "running tool crashy_abort"));
}

#[test]
fn a_segfaulting_apply_names_the_pending_action() {
    let (signal, stdout, last) = run_crashy(&[
        json!({"tool": "crashy_ok"}),
        json!({"tool": "crashy_apply_segfault"}),
        json!({"tool": "resolve", "arguments": {"action": "apply", "reason": "go"}}),
    ]);
    assert_eq!(signal, Some(SIGSEGV));
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert_eq!(
        last,
        report(
            "SIGSEGV",
            "applying pending action Crashy: segfault on apply"
        )
    );
}

#[test]
fn a_signal_outside_pack_code_is_not_blamed_on_a_pack() {
    // After a pack call has returned, a fatal signal is not the pack's
    // doing: it keeps its default action and nothing names the pack.
    let env = Env::new();
    let pack = pack_path("fixture-crashy");
    let mut child = env
        .command(&["run", "--plugin", arg(&pack), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", json!({"tool": "crashy_ok"})).unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains("still here"), "{line}");
    let killed = std::process::Command::new("kill")
        .args(["-ABRT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    drop(stdin);
    assert_eq!(status.signal(), Some(SIGABRT));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!stderr.contains("fatal:"), "{stderr}");
}

#[test]
fn a_tool_that_calls_exit_is_named_and_its_status_kept() {
    let env = Env::new();
    let pack = pack_path("fixture-crashy");
    let script_path = env.write(
        "calls.jsonl",
        "{\"tool\": \"crashy_ok\"}\n{\"tool\": \"crashy_exit\"}\n",
    );
    let output = env
        .command(&["run", "--plugin", arg(&pack), arg(&script_path)])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(3));
    // The step that finished before is written out, not lost.
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.contains("still here"), "{stdout}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.lines().last().unwrap_or_default(),
        format!(
            "fatal: tool pack fixture-crashy 0.1.0 ({}) ended the agent by calling exit while running tool crashy_exit {ISOLATION_HINT}",
            canonical(&pack_path("fixture-crashy")).display()
        )
    );
}

/// With `RUST_BACKTRACE` inherited (`1` or `full`), a pack's crash report
/// still ends with its one-line cause: in process, the `fatal:` line is
/// the last on stderr; isolated, the report quotes the cause the pack's
/// process wrote, not the frames of its backtrace (those still reach the
/// agent's stderr).
#[test]
fn a_crash_report_names_its_cause_whatever_rust_backtrace_says() {
    for backtrace in ["1", "full"] {
        let env = Env::new();
        let pack = pack_path("fixture-crashy");
        let run = |script: &std::path::Path| {
            env.command(&["run", "--plugin", arg(&pack), arg(script)])
                .env("RUST_BACKTRACE", backtrace)
                .stdin(Stdio::null())
                .output()
                .unwrap()
        };
        let script = env.write("calls.jsonl", "{\"tool\": \"crashy_abort\"}\n");
        let output = run(&script);
        assert_eq!(output.status.signal(), Some(SIGABRT));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(
            stderr.lines().last().unwrap_or_default(),
            report("SIGABRT", "running tool crashy_abort"),
            "RUST_BACKTRACE={backtrace}"
        );

        let config = env.user_config_dir();
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("config.toml"),
            "[isolation]\nall = true\nmemory_limit_mb = 256\n",
        )
        .unwrap();
        let script = env.write(
            "calls.jsonl",
            "{\"tool\": \"crashy_alloc\"}\n{\"tool\": \"crashy_ok\"}\n",
        );
        let output = run(&script);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        let stdout = String::from_utf8(output.stdout).unwrap();
        let expected = "Tool crashy_alloc crashed: the process of pack fixture-crashy was killed by signal SIGABRT; the pack restarts on the next call\nIts last lines on stderr:\n  memory allocation of 67108864 bytes failed";
        let quoted = serde_json::to_string(expected).unwrap();
        assert!(
            stdout.contains(&quoted),
            "RUST_BACKTRACE={backtrace}: {stdout}"
        );
        assert!(stdout.contains("still here"), "{stdout}");
    }
}
