//! The limits of one session, end to end: time limits on apply and reject,
//! a deep pending stack, memory for one huge line, the cap on one result,
//! and `xcsh mcp` ending with a reject that never returns.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    Env, XCSH, arg, batch_rename, json_lines, pack_path, preview_line, resolve_line,
};

fn text(line: &Value) -> &str {
    line["result"]["content"][0]["text"].as_str().unwrap()
}

/// `xcsh run SCRIPT` over a script file (so no pipe fills up) with the
/// batch-rename and hostile packs and `extra` arguments.
fn run_script(env: &Env, extra: &[&str], script: &str) -> Vec<Value> {
    let path = env.work().join("script.jsonl");
    std::fs::write(&path, script).unwrap();
    let (rename, hostile) = (batch_rename(), pack_path("fixture-hostile"));
    let mut args = vec!["run", "--plugin", arg(&rename), "--plugin", arg(&hostile)];
    args.extend_from_slice(extra);
    args.push(arg(&path));
    let output = env.run(&args, "");
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    json_lines(&output.stdout)
}

#[test]
fn a_spinning_apply_and_a_hanging_reject_are_bounded_by_a_two_second_limit() {
    let env = Env::new();
    env.write("a.txt", "a");
    let script = [
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "new_"})),
        json!({"tool": "push_stuck", "arguments": {"tag": "s", "spin": true}}).to_string(),
        resolve_line("apply", "go"),
        resolve_line("discard", "stuck"),
        resolve_line("apply", "the rename"),
    ]
    .join("\n");
    let started = Instant::now();
    let lines = run_script(&env, &["--tool-timeout", "2"], &script);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert_eq!(text(&lines[2]), "Apply failed: apply timed out after 2s");
    assert_eq!(lines[2]["result"]["isError"], true);
    assert_eq!(lines[2]["pending"], 2, "the action stays pending");
    assert_eq!(
        text(&lines[3]),
        "Discard cleanup failed: reject timed out after 2s"
    );
    assert_eq!(lines[3]["pending"], 1, "the action is gone");
    assert_eq!(lines[4]["result"]["isError"], false, "{}", lines[4]);
    assert_eq!(lines[4]["pending"], 0);
    assert_eq!(env.files(), ["new_a.txt", "script.jsonl"]);
}

#[test]
fn a_hundred_thousand_previews_left_pending_go_through() {
    const N: usize = 100_000;
    let env = Env::new();
    let mut script = String::with_capacity(N * 50);
    for i in 0..N {
        script.push_str(&format!(
            "{{\"tool\":\"push_marker\",\"arguments\":{{\"tag\":\"{i}\"}}}}\n"
        ));
    }
    script.push_str(&resolve_line("apply", "newest"));
    let lines = run_script(&env, &[], &script);
    assert_eq!(lines.len(), N + 1);
    assert_eq!(lines[N - 1]["pending"], N);
    assert_eq!(text(&lines[N - 1]), format!("pushed {}", N - 1));
    assert_eq!(text(&lines[N]), format!("applied {}", N - 1));
    assert_eq!(lines[N]["pending"], N - 1);
}

#[test]
fn a_deep_stack_renders_its_newest_five_labels_and_a_count() {
    let env = Env::new();
    let mut script = String::new();
    for i in 0..7 {
        script.push_str(&format!(
            "{{\"tool\":\"push_marker\",\"arguments\":{{\"tag\":\"{i}\"}}}}\n"
        ));
    }
    let path = env.work().join("script.jsonl");
    std::fs::write(&path, script).unwrap();
    let hostile = pack_path("fixture-hostile");
    let output = env.run(
        &["run", "--pretty", "--plugin", arg(&hostile), arg(&path)],
        "",
    );
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let last = output.stdout.lines().last().unwrap();
    assert_eq!(
        last,
        "⏳ 7 pending (newest first): Marker: 6; Marker: 5; Marker: 4; Marker: 3; Marker: 2; … and 2 more"
    );
}

/// `xcsh run` over `input` (a file) under a wrapper that reports the
/// child's peak resident set size (`wait4`'s `ru_maxrss`), in bytes.
fn peak_rss(env: &Env, input: &[u8]) -> (u64, Vec<Value>) {
    let path = env.work().join("huge.jsonl");
    std::fs::write(&path, input).unwrap();
    let wrapper = "import os, subprocess, sys\n\
        child = subprocess.Popen(sys.argv[1:], stdout=open(os.environ['OUT'], 'wb'))\n\
        _, status, usage = os.wait4(child.pid, 0)\n\
        print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))\n";
    let out = env.work().join("out.jsonl");
    let hostile = pack_path("fixture-hostile");
    let output = Command::new("python3")
        .args([
            "-c",
            wrapper,
            XCSH,
            "run",
            "--plugin",
            arg(&hostile),
            arg(&path),
        ])
        .current_dir(env.work())
        .env("HOME", env.home.path())
        .env("OUT", &out)
        .env_remove("XCSH_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .output()
        .expect("python3 runs (the MCP test needs it too)");
    let report = String::from_utf8(output.stdout).unwrap();
    let mut fields = report.split_whitespace();
    let kib: u64 = fields.next().unwrap().parse().unwrap();
    assert_eq!(
        fields.next(),
        Some("0"),
        "{report} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&std::fs::read_to_string(out).unwrap());
    std::fs::remove_file(path).unwrap();
    (kib * 1024, lines)
}

#[test]
fn one_huge_line_stays_within_a_small_multiple_of_its_size() {
    const LINE: usize = 16 * 1024 * 1024;
    const BASE: u64 = 64 * 1024 * 1024;
    let env = Env::new();
    // Two bytes a value as text, dozens as parsed JSON: once 34 times the
    // line's size in memory.
    let numbers = format!(
        "{{\"tool\":\"push_marker\",\"arguments\":{{\"tag\":\"x\",\"pad\":[{}0]}}}}\n",
        "0,".repeat(LINE / 2)
    );
    let (peak, lines) = peak_rss(&env, numbers.as_bytes());
    assert!(
        peak < BASE + 6 * LINE as u64,
        "peak {} MiB for a {} MiB line",
        peak >> 20,
        LINE >> 20
    );
    assert_eq!(lines.len(), 1);
    assert!(
        text(&lines[0]).starts_with(&format!(
            "invalid tool call on line 1: too many JSON values for a line of {} bytes (they would take more than 3 times its size in memory) at line 1 column ",
            numbers.len() - 1
        )),
        "{}",
        text(&lines[0])
    );

    // One long string is fine: it is pushed, and its echo is capped.
    let string = format!(
        "{{\"tool\":\"push_marker\",\"arguments\":{{\"tag\":\"{}\"}}}}\n",
        "y".repeat(LINE)
    );
    let (peak, lines) = peak_rss(&env, string.as_bytes());
    assert!(peak < BASE + 10 * LINE as u64, "peak {} MiB", peak >> 20);
    assert_eq!(lines[0]["pending"], 1);
}

#[test]
fn an_over_cap_result_is_cut_with_the_note() {
    let env = Env::new();
    let big =
        |bytes: usize| json!({"tool": "big_output", "arguments": {"bytes": bytes}}).to_string();
    let script = [big(2 * 1024 * 1024), big(1024 * 1024)].join("\n");
    let lines = run_script(&env, &[], &script);
    let content = lines[0]["result"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 2);
    assert_eq!(content[0]["text"].as_str().unwrap().len(), 1024 * 1024);
    assert_eq!(
        content[1]["text"],
        "[Result truncated: 2097152 bytes, over the 1048576-byte limit]"
    );
    assert_eq!(
        lines[1]["result"]["content"].as_array().unwrap().len(),
        1,
        "at the cap: whole"
    );

    let lines = run_script(&env, &["--max-result-bytes", "10"], &big(11));
    assert_eq!(
        lines[0]["result"]["content"],
        json!([
            {"type": "text", "text": "xxxxxxxxxx"},
            {"type": "text", "text": "[Result truncated: 11 bytes, over the 10-byte limit]"}
        ])
    );
    let lines = run_script(&env, &["--max-result-bytes", "0"], &big(3 * 1024 * 1024));
    assert_eq!(text(&lines[0]).len(), 3 * 1024 * 1024, "0: no cap");
}

/// Raw JSON-RPC over `xcsh mcp`'s standard input and output: a pending
/// action whose reject never returns, then the client leaves.
#[test]
fn mcp_ends_after_the_client_leaves_even_when_a_reject_never_returns() {
    let env = Env::new();
    let hostile = pack_path("fixture-hostile");
    let mut child = env
        .command(&["mcp", "--plugin", arg(&hostile), "--tool-timeout", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = |message: Value| writeln!(stdin, "{message}").unwrap();
    let mut response = |id: u64| loop {
        let mut line = String::new();
        assert_ne!(
            stdout.read_line(&mut line).unwrap(),
            0,
            "the server left early"
        );
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            return message;
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    assert!(response(1)["result"].is_object());
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "push_stuck", "arguments": {"tag": "forever"}}}),
    );
    let called = response(2);
    assert_eq!(
        called["result"]["content"][0]["text"], "pushed stuck forever",
        "{called}"
    );
    drop(stdin);

    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("xcsh mcp did not exit after the client left");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains(
            "warning: Discarded pending action \"Stuck: forever\": session ended without resolve; its cleanup failed: reject timed out after 2s"
        ),
        "{stderr}"
    );
}
