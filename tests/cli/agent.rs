//! `xcsh agent` end to end: the model settings (flags, the user's
//! `[model]` only, never a key in a file), the conversation as printed
//! (`--pretty` style and `--json`) against a loopback server that plays a
//! scripted model, and Ctrl-C. The real local model server's tests are
//! `tests/tests/model/local_server.rs`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::{Value, json};
use xcsh_test_support::loopback::{Loopback, Script};

use crate::support::{Env, arg, batch_rename, json_lines};

/// A Chat Completions answer with these tool calls (name, arguments).
fn calls(calls: &[(&str, Value)]) -> String {
    let calls: Vec<Value> = calls
        .iter()
        .enumerate()
        .map(|(index, (name, arguments))| {
            json!({"id": format!("call_{index}"), "type": "function",
                   "function": {"name": name, "arguments": arguments.to_string()}})
        })
        .collect();
    json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": calls}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
    .to_string()
}

/// A Chat Completions answer with text only.
fn text(text: &str) -> String {
    json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 3}})
    .to_string()
}

fn preview() -> (&'static str, Value) {
    (
        "batch_rename_preview",
        json!({"files": ["draft-intro.md", "draft-usage.md"],
               "rule": {"kind": "regex", "pattern": "^draft-", "replacement": "final-"}}),
    )
}

fn apply() -> (&'static str, Value) {
    (
        "resolve",
        json!({"action": "apply", "reason": "the drafts are final"}),
    )
}

fn answer(body: String) -> Script {
    Box::new(move |_| (200, "application/json", body))
}

fn drafts() -> Env {
    let env = Env::new();
    env.write("draft-intro.md", "intro");
    env.write("draft-usage.md", "usage");
    env
}

fn agent_args<'a>(loopback: &'a str, pack: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "agent",
        "--plugin",
        pack,
        "--base-url",
        loopback,
        "--model",
        "scripted",
        "--no-stream",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn the_conversation_prints_as_run_pretty_does_and_the_apply_is_journaled() {
    let env = drafts();
    let loopback = Loopback::serve(vec![
        answer(calls(&[preview()])),
        answer(calls(&[apply()])),
        answer(text("Renamed both drafts.")),
    ]);
    let url = format!("{}/v1", loopback.url);
    let pack = batch_rename();
    let output = env.run(
        &agent_args(&url, arg(&pack), &["Rename the drafts to final-"]),
        "",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let expected = format!(
        "Loaded tool pack batch-rename 0.1.0{} from {}: batch_rename_preview
✓ batch_rename_preview  Batch rename preview (2 files):
    draft-intro.md → final-intro.md
    draft-usage.md → final-usage.md
⏳ 1 pending: Batch Rename: 2 files
✓ resolve  Accept: [Batch Rename] 2 files — reason: the drafts are final
  Renamed 2 files:
    draft-intro.md → final-intro.md
    draft-usage.md → final-usage.md
model: Renamed both drafts.
Agent stopped: the model finished
",
        crate::support::built(&pack),
        pack.display()
    );
    assert_eq!(output.stdout, expected);
    assert_eq!(env.files(), ["final-intro.md", "final-usage.md"]);
    let requests = loopback.seen();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].body["tool_choice"], "auto");
    assert_eq!(
        requests[0].body["messages"][1]["content"],
        "Rename the drafts to final-"
    );
    assert_eq!(
        requests[1].body["tool_choice"],
        json!({"type": "function", "function": {"name": "resolve"}})
    );
    assert_eq!(requests[2].body["tool_choice"], "auto");
    // No key variable named: no key sent.
    assert_eq!(requests[0].header("authorization"), None);
    let journal = std::fs::read_to_string(env.user_journal()).unwrap();
    let entries: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let outcomes: Vec<(&str, &str)> = entries
        .iter()
        .map(|e| (e["event"].as_str().unwrap(), e["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(outcomes, [("push", "pushed"), ("resolve", "applied")]);
    assert_eq!(entries[1]["decidedBy"], "model");
}

#[test]
fn json_lines_name_each_event_and_the_end_and_the_key_comes_from_the_named_variable() {
    let env = drafts();
    let loopback = Loopback::serve(vec![answer(calls(&[preview()])), answer(text("ok"))]);
    let url = format!("{}/v1", loopback.url);
    let pack = batch_rename();
    let mut command = env.command(&agent_args(
        &url,
        arg(&pack),
        &[
            "--json",
            "--api-key-env",
            "XCSH_TEST_KEY",
            "--max-turns",
            "2",
        ],
    ));
    command.env("XCSH_TEST_KEY", "sk-test-123");
    let output = env.run_command(command, "Rename the drafts\n");
    assert_eq!(output.code, Some(1), "{output:?}");
    let lines = json_lines(&output.stdout);
    let events: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(
        events,
        ["request", "call", "request", "text", "ladder", "end"]
    );
    assert_eq!(lines[0]["toolChoice"], json!({"type": "auto"}));
    assert_eq!(lines[1]["tool"], "batch_rename_preview");
    assert_eq!(lines[1]["pending"], 1);
    assert_eq!(
        lines[1]["toolChoice"],
        json!({"type": "tool", "name": "resolve"})
    );
    assert_eq!(lines[1]["arguments"]["rule"]["kind"], "regex");
    assert_eq!(lines[3]["text"], "ok");
    assert_eq!(lines[4]["step"]["from"], "named");
    assert_eq!(lines[4]["step"]["cause"]["kind"], "ignored");
    let end = lines.last().unwrap();
    assert_eq!(end["reason"], json!({"kind": "turns", "limit": 2}));
    assert_eq!(end["message"], "turn limit reached (2 requests)");
    assert_eq!(end["discarded"], 1);
    assert_eq!(env.files(), ["draft-intro.md", "draft-usage.md"]);
    let requests = loopback.seen();
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-test-123")
    );
    assert_eq!(
        requests[0].body["messages"][1]["content"],
        "Rename the drafts"
    );
    assert!(
        output.stderr.contains(
            "Discarded pending action \"Batch Rename: 2 files\": session ended without resolve"
        ),
        "{}",
        output.stderr
    );
    // The key is in no file the run wrote.
    let journal = std::fs::read_to_string(env.user_journal()).unwrap();
    assert!(!journal.contains("sk-test-123"));
}

#[test]
fn ctrl_c_while_a_request_is_out_discards_the_pending_action_and_runs_no_call() {
    let env = drafts();
    let pid = Arc::new(AtomicU32::new(0));
    let signal = Arc::clone(&pid);
    let loopback = Loopback::serve(vec![
        answer(calls(&[preview()])),
        Box::new(move |_| {
            // The person presses Ctrl-C while the model is answering with
            // an apply.
            let status = std::process::Command::new("kill")
                .args(["-INT", &signal.load(Ordering::SeqCst).to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            std::thread::sleep(std::time::Duration::from_millis(300));
            (200, "application/json", calls(&[apply()]))
        }),
    ]);
    let url = format!("{}/v1", loopback.url);
    let pack = batch_rename();
    let mut child = env
        .command(&agent_args(&url, arg(&pack), &["Rename the drafts"]))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    pid.store(child.id(), Ordering::SeqCst);
    let status = child.wait().unwrap();
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    assert_eq!(status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .ends_with("Agent stopped: interrupted; discarded 1 pending action (never applied)\n"),
        "{stdout}"
    );
    assert_eq!(env.files(), ["draft-intro.md", "draft-usage.md"]);
}

#[test]
fn the_model_comes_from_flags_or_the_users_config_never_a_projects() {
    let env = Env::new();
    let output = env.run(&["agent", "do something"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        "error: no model base URL: give --base-url, or set it in the [model] table of your config file\n"
    );
    // A trusted project's [model] is not read.
    env.write(
        ".xcsh/config.toml",
        "[model]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"project\"\n",
    );
    env.trust();
    let output = env.run(&["agent", "do something"], "");
    assert_eq!(
        output.stderr,
        format!(
            "warning: Ignoring [model] in {}: the model is set in the user's config file only\n\
             error: no model base URL: give --base-url, or set it in the [model] table of your config file\n",
            env.work().join(".xcsh/config.toml").display()
        ),
    );
    // The user's is; a key in it is refused, a missing variable named.
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[model]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_key = \"sk-secret\"\n",
    );
    let output = env.run(&["agent", "do something"], "");
    assert!(
        output.stderr.contains("unknown field `api_key`"),
        "{output:?}"
    );
    assert!(!output.stderr.contains("sk-secret"), "{output:?}");
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[model]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\napi_key_env = \"XCSH_NO_SUCH_KEY\"\n",
    );
    let output = env.run(&["agent", "do something"], "");
    assert!(
        output.stderr.ends_with(
            "\nerror: the environment variable XCSH_NO_SUCH_KEY (named for the model's API key) is not set\n"
        ),
        "{output:?}"
    );
    let output = env.run(&["agent"], "   \n");
    assert!(
        output
            .stderr
            .ends_with("\nerror: no task: give it as arguments or on standard input\n"),
        "{output:?}"
    );
}

/// The model loop runs its calls on the session's thread under the time
/// limit: a call past it is answered at the limit, the model reads the
/// timeout, and the reply's next call runs while the first still blocks.
#[test]
fn a_call_past_the_time_limit_times_out_and_the_agent_goes_on() {
    let env = Env::new();
    let loopback = Loopback::serve(vec![
        answer(calls(&[
            ("block", json!({"ms": 600_000})),
            ("block", json!({"ms": 0})),
        ])),
        answer(text("done")),
    ]);
    let url = format!("{}/v1", loopback.url);
    let hostile = crate::support::pack_path("fixture-hostile");
    let command = env.command(&agent_args(
        &url,
        arg(&hostile),
        &["--json", "--tool-timeout", "0.3"],
    ));
    let started = std::time::Instant::now();
    let output = env.run_command(command, "Block\n");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines = json_lines(&output.stdout);
    let events: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(
        events,
        ["request", "call", "call", "request", "text", "end"]
    );
    assert_eq!(
        lines[1]["result"]["content"][0]["text"],
        "Tool block timed out after 300ms"
    );
    assert_eq!(lines[1]["result"]["isError"], true);
    assert_eq!(lines[2]["result"]["isError"], false, "{}", lines[2]);
    assert_eq!(lines[5]["reason"], json!({"kind": "finished"}));
    let requests = loopback.seen();
    let results: Vec<&Value> = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| &message["content"])
        .collect();
    assert_eq!(results.len(), 2, "{:?}", requests[1].body);
    assert_eq!(results[0], "Tool block timed out after 300ms");
}
