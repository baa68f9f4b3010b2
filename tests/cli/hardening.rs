//! Hostile input to the agent and hostile packs under its policies: each
//! gives a clear error for that line, memory stays bounded, nothing pending
//! is lost and the session goes on.

use std::io::Write as _;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::{Env, arg, batch_rename, json_lines, pack_path, preview_line, resolve_line};

/// `xcsh run` over `input` (raw bytes) with the batch-rename pack and
/// `extra` arguments, in a shell with `ulimit -v` of `limit_mib`.
fn run_bytes(env: &Env, extra: &[&str], input: &[u8], limit_mib: u64) -> (Vec<Value>, String) {
    let script = format!("ulimit -v {} && exec \"$0\" \"$@\"", limit_mib * 1024);
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg(script)
        .arg(crate::support::XCSH)
        .args(["run", "--plugin", arg(&batch_rename())])
        .args(extra)
        .current_dir(env.work())
        .env("HOME", env.home.path())
        .env("XDG_CONFIG_HOME", env.home.path().join(".config"))
        .env("XDG_DATA_HOME", env.home.path().join(".local/share"))
        .env_remove("XCSH_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "stderr: {stderr}");
    (json_lines(&stdout), stderr)
}

fn error_text(line: &Value) -> &str {
    assert_eq!(line["result"]["isError"], true, "{line}");
    line["result"]["content"][0]["text"].as_str().unwrap()
}

#[test]
fn hostile_input_lines_each_get_an_error_and_the_pending_action_survives() {
    let env = Env::new();
    env.write("a.txt", "a");
    let mut input = Vec::new();
    let mut line = |bytes: &[u8]| {
        input.extend_from_slice(bytes);
        input.push(b'\n');
    };
    line(preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "new_"})).as_bytes());
    line(b"{\"tool\": \"resolve\", \"arguments\": {");
    line(b"\xff\xfe not utf-8 \xc3\x28");
    line(format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).as_bytes());
    line(br#"{"tool": "resolve", "arguments": {"action": "apply", "reason": "x"}, "force": true}"#);
    line(br#"{"tool": "resolve", "arguments": {"action": "apply", "reason": "x", "force": true}}"#);
    let huge = "h".repeat(30 * 1024 * 1024);
    line(preview_line(&[&huge], json!({"kind": "prefix", "prefix": "x"})).as_bytes());
    line(
        json!({"tool": "resolve", "arguments": {"action": "apply", "reason": huge}})
            .to_string()
            .as_bytes(),
    );
    line(b"");
    line(resolve_line("apply", "after all that").as_bytes());

    let (lines, _) = run_bytes(&env, &[], &input, 1024);
    assert_eq!(lines.len(), 9, "{lines:#?}");
    assert_eq!(lines[0]["pending"], 1);
    assert!(error_text(&lines[1]).starts_with("invalid JSON on line 2: "));
    assert!(error_text(&lines[2]).starts_with("invalid UTF-8 on line 3: "));
    assert!(
        error_text(&lines[3]).starts_with("invalid JSON on line 4: recursion limit exceeded"),
        "{}",
        error_text(&lines[3])
    );
    assert_eq!(
        error_text(&lines[4]),
        "invalid tool call on line 5: unknown field `force`, expected one of `tool`, `arguments`, `id`"
    );
    assert!(
        error_text(&lines[5]).starts_with("Invalid arguments for resolve: "),
        "{}",
        error_text(&lines[5])
    );
    // The 30 MiB error is cut to the 1 MiB result cap, with the note.
    let cut = error_text(&lines[6]);
    assert!(cut.len() == 1024 * 1024 && huge.starts_with(cut));
    assert_eq!(
        lines[6]["result"]["content"][1]["text"],
        format!(
            "[Result truncated: {} bytes, over the 1048576-byte limit]",
            huge.len() + ": no such file".len()
        )
    );
    // A 30 MiB reason is a valid reason: the apply goes through.
    assert_eq!(lines[7]["result"]["isError"], false, "{}", lines[7]);
    assert_eq!(lines[7]["pending"], 0);
    assert_eq!(
        error_text(&lines[8]),
        "No pending action to resolve. Nothing to apply or discard."
    );
    assert_eq!(env.files(), ["new_a.txt"]);
    for line in &lines[1..7] {
        assert!(line["result"]["content"][0]["text"].as_str().unwrap().len() < 40 * 1024 * 1024);
    }
}

#[test]
fn an_over_long_line_is_skipped_in_bounded_memory() {
    let env = Env::new();
    env.write("a.txt", "a");
    let mut input =
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "n_"})).into_bytes();
    input.push(b'\n');
    // 80 MiB on one line: more than the 64 MiB the reader holds.
    input.extend(std::iter::repeat_n(b'{', 80 * 1024 * 1024));
    input.push(b'\n');
    input.extend_from_slice(resolve_line("apply", "ok").as_bytes());
    input.push(b'\n');
    // Address space capped well below what buffering the line, parsing it
    // and echoing it would take several times over.
    let (lines, _) = run_bytes(&env, &[], &input, 600);
    assert_eq!(lines.len(), 3);
    assert_eq!(
        error_text(&lines[1]),
        "line 2 is longer than 64 MiB; skipped"
    );
    assert_eq!(lines[1]["pending"], 1, "nothing pending is lost");
    assert_eq!(lines[2]["result"]["isError"], false);
    assert_eq!(env.files(), ["n_a.txt"]);
}

/// `input` through `xcsh run` with the hostile fixture pack and a 300 ms
/// limit: the output lines, and how long the run took (the pack is built,
/// if need be, before the clock starts).
fn run_with_hostile_pack(env: &Env, input: &str) -> (Vec<Value>, std::time::Duration) {
    let hostile = pack_path("fixture-hostile");
    let started = std::time::Instant::now();
    let (lines, _) = run_bytes(
        env,
        &["--plugin", arg(&hostile), "--tool-timeout", "0.3"],
        input.as_bytes(),
        1024,
    );
    (lines, started.elapsed())
}

#[test]
fn a_pack_call_past_the_time_limit_times_out_and_the_script_goes_on() {
    let env = Env::new();
    env.write("a.txt", "a");
    let input = [
        preview_line(&["a.txt"], json!({"kind": "suffix", "suffix": "-1"})),
        json!({"tool": "block", "arguments": {"ms": 5000}}).to_string(),
        resolve_line("apply", "still here"),
    ]
    .join("\n");
    let (lines, elapsed) = run_with_hostile_pack(&env, &input);
    assert!(elapsed < std::time::Duration::from_secs(4));
    assert_eq!(error_text(&lines[1]), "Tool block timed out after 300ms");
    assert_eq!(lines[2]["result"]["isError"], false);
    assert_eq!(env.files(), ["a-1.txt"]);
}

#[test]
fn a_script_whose_calls_never_return_neither_stops_nor_hangs() {
    let env = Env::new();
    env.write("a.txt", "a");
    let never = json!({"tool": "block", "arguments": {"ms": 600_000}}).to_string();
    let input = [
        never.clone(),
        preview_line(&["a.txt"], json!({"kind": "suffix", "suffix": "-1"})),
        never.clone(),
        never,
        resolve_line("apply", "still here"),
    ]
    .join("\n");
    let (lines, elapsed) = run_with_hostile_pack(&env, &input);
    // Three limits of 300 ms, and no wait for the calls still blocked.
    assert!(elapsed < std::time::Duration::from_secs(8));
    assert_eq!(lines.len(), 5, "{lines:?}");
    for line in [&lines[0], &lines[2], &lines[3]] {
        assert_eq!(error_text(line), "Tool block timed out after 300ms");
    }
    assert_eq!(lines[3]["pending"], 1, "the preview stays pending");
    assert_eq!(lines[4]["result"]["isError"], false);
    assert_eq!(lines[4]["line"], 5);
    assert_eq!(env.files(), ["a-1.txt"]);
}

#[test]
fn the_config_allow_list_pins_packs_by_hash() {
    let env = Env::new();
    let good = batch_rename();
    let hash = xcsh_loader::sha256_hex(&std::fs::read(&good).unwrap());
    let hostile = pack_path("fixture-hostile");
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        &format!(
            "plugins = [{good:?}, {hostile:?}]\n[allow_list]\n{good:?} = \"{hash}\"\n",
            good = arg(&good),
            hostile = arg(&hostile),
        ),
    );
    let output = env.run(&["tools", "--json"], "");
    assert_eq!(output.code, Some(0), "{}", output.stderr);
    let json: Value = serde_json::from_str(&output.stdout).unwrap();
    let failures = json["report"]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{json:#}");
    assert_eq!(
        failures[0]["message"],
        format!(
            "Failed to load tool pack {}: not in the allow-list",
            hostile.display()
        )
    );
    let names: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"batch_rename_preview"), "{names:?}");
}

#[test]
fn an_invalid_tool_timeout_is_a_clear_error() {
    let env = Env::new();
    let output = env.run(&["tools", "--tool-timeout", "soon"], "");
    assert_eq!(output.code, Some(2));
    assert!(
        output.stderr.contains(
            "invalid value 'soon' for '--tool-timeout <SECONDS>': expected a number of seconds, 0 or more, not \"soon\""
        ),
        "{}",
        output.stderr
    );
}

#[test]
fn an_mcp_call_past_the_time_limit_is_answered_at_the_limit_and_its_late_push_refused() {
    let env = Env::new();
    let hostile = pack_path("fixture-hostile");
    let mut server = crate::mcp_wire::Server::start_with(
        &env,
        &["mcp", "--plugin", arg(&hostile), "--tool-timeout", "0.3"],
    );
    server.initialize();
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
    };
    let text = |answer: &Value| {
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    let started = std::time::Instant::now();
    server.send_json(&call(
        2,
        "block_then_push",
        json!({"ms": 1500, "tag": "late"}),
    ));
    let timed_out = server.until(2).pop().unwrap();
    let answered_after = started.elapsed();
    assert_eq!(timed_out["result"]["isError"], true, "{timed_out}");
    assert_eq!(
        text(&timed_out),
        "Tool block_then_push timed out after 300ms"
    );
    assert!(
        answered_after < std::time::Duration::from_millis(1200),
        "answered at the limit, not when the call returned: {answered_after:?}"
    );

    // The next call runs while the first is still blocked.
    server.send_json(&call(3, "block", json!({"ms": 0})));
    assert_eq!(text(&server.until(3).pop().unwrap()), "woke up");

    // When the stuck call returns (1.5 s in), its push is refused and
    // nothing is pending.
    std::thread::sleep(std::time::Duration::from_millis(1800).saturating_sub(started.elapsed()));
    server.send_json(&call(
        4,
        "late_push_outcome",
        json!({"ms": 200, "tag": "late"}),
    ));
    let outcome = text(&server.until(4).pop().unwrap());
    assert_eq!(outcome, xcsh_core::PUSH_OUTSIDE_CALL, "{outcome}");
    // The refused push left nothing for resolve.
    server.send_json(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "resolve", "arguments": {"action": "apply", "reason": "check"}}}));
    let resolved = text(&server.until(5).pop().unwrap());
    assert_eq!(
        resolved, "No pending action to resolve. Nothing to apply or discard.",
        "nothing pending"
    );
    let (status, _) = server.finish();
    assert!(status.success());
}
