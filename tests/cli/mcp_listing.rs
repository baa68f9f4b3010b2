//! `resolve` for MCP clients that keep their first tool list (Claude Code
//! among them): listed always by default, answering that nothing is
//! pending when nothing is; and an HTTP session whose client left without
//! a DELETE (the TypeScript SDK's `close()`) ends soon after when
//! something is pending, instead of at the idle timeout.

use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use xcsh_core::PREVIEW_REMINDER;

use crate::mcp_http_server::{Started, start, stop};
use crate::mcp_wire::Server;
use crate::support::{Env, arg, batch_rename};

const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";
const LIST_CHANGED: &str = "notifications/tools/list_changed";

fn names(listed: &Value) -> Vec<&str> {
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

fn call(id: u64, name: &str, arguments: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

/// The texts of a `tools/call` answer, and whether it is an error.
fn result(answer: &Value) -> (bool, Vec<&str>) {
    let result = &answer["result"];
    let texts = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect();
    (result["isError"] == true, texts)
}

#[test]
fn a_client_that_never_rereads_the_tool_list_can_call_resolve_whenever_a_preview_asks() {
    let env = Env::new();
    env.write("a.txt", "a");
    let pack = batch_rename();
    let mut server = Server::start_with(&env, &["mcp", "--plugin", arg(&pack)]);
    server.initialize();
    // The one list this client ever reads.
    server.send_json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed = server.until(2).pop().unwrap();
    assert_eq!(
        names(&listed),
        ["resolve", "ast_edit", "batch_rename_preview"]
    );
    // Nothing pending: exactly the contract's answer, and nothing happens.
    let arguments = json!({"action": "apply", "reason": "nothing yet"});
    server.send_json(&call(3, "resolve", &arguments));
    let nothing = server.until(3);
    assert_eq!(
        result(nothing.last().unwrap()),
        (true, vec![NOTHING_PENDING])
    );
    // A preview asks for resolve, and the listed resolve applies it.
    let rule = json!({"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "old-"}});
    server.send_json(&call(4, "batch_rename_preview", &rule));
    let previewed = server.until(4);
    let (is_error, texts) = result(previewed.last().unwrap());
    assert!(!is_error, "{texts:?}");
    assert_eq!(texts.last(), Some(&PREVIEW_REMINDER));
    let arguments = json!({"action": "apply", "reason": "old is right"});
    server.send_json(&call(5, "resolve", &arguments));
    let applied = server.until(5);
    assert_eq!(
        result(applied.last().unwrap()),
        (false, vec!["Renamed 1 file:\n  a.txt → old-a.txt"])
    );
    // The list never changed, so nothing said it did.
    let notified = [nothing, previewed, applied]
        .concat()
        .iter()
        .filter(|message| message["method"] == LIST_CHANGED)
        .count();
    assert_eq!(notified, 0);
    let (status, _) = server.finish();
    assert!(status.success());
    assert_eq!(env.files(), ["old-a.txt"]);
}

#[test]
fn while_pending_hides_resolve_until_a_preview_and_says_so_in_its_instructions() {
    let env = Env::new();
    env.write("a.txt", "a");
    let pack = batch_rename();
    let mut server = Server::start_with(
        &env,
        &[
            "mcp",
            "--list-resolve",
            "while-pending",
            "--plugin",
            arg(&pack),
        ],
    );
    server.send_json(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    let initialized = server.until(1).pop().unwrap();
    assert!(
        initialized["result"]["instructions"]
            .as_str()
            .unwrap()
            .ends_with("`resolve` is listed only while something is pending."),
        "{initialized}"
    );
    server.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send_json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(
        names(&server.until(2).pop().unwrap()),
        ["ast_edit", "batch_rename_preview"]
    );
    let rule = json!({"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "old-"}});
    server.send_json(&call(3, "batch_rename_preview", &rule));
    let previewed = server.until(3);
    assert!(
        previewed
            .iter()
            .any(|message| message["method"] == LIST_CHANGED),
        "{previewed:?}"
    );
    server.send_json(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}));
    assert_eq!(
        names(&server.until(4).pop().unwrap()),
        ["resolve", "ast_edit", "batch_rename_preview"]
    );
    let (status, _) = server.finish();
    assert!(status.success());
}

/// Node.js and the node_modules holding the pinned TypeScript SDK,
/// provisioned by `scripts/mcp-conformance --provision`.
fn typescript_sdk() -> (String, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/mcp-conformance");
    let output = Command::new(script).arg("--provision").output().unwrap();
    assert!(
        output.status.success(),
        "scripts/mcp-conformance --provision failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines = stdout.lines();
    let node = lines.next().expect("the Node.js line").to_owned();
    let modules = lines.next().expect("the node_modules line").to_owned();
    (node, modules)
}

/// The journal's session-end discards.
fn session_end_discards(env: &Env) -> usize {
    std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["event"] == "resolve" && line["decidedBy"] == "session end")
        .count()
}

/// Starts `xcsh mcp --http` with `extra` flags, runs the TypeScript
/// client against it, and waits up to `wait` after the client exited for
/// the session-end discard; what the client saw, and how long after its
/// exit the discard came (`None`: not within `wait`).
fn typescript_close(env: &Env, extra: &[&str], wait: Duration) -> (Value, Option<Duration>) {
    let (node, modules) = typescript_sdk();
    let token_file = env.home.path().join("token");
    let pack = batch_rename();
    let mut args = vec![
        "mcp",
        "--http",
        "127.0.0.1:0",
        "--token-file",
        arg(&token_file),
        "--plugin",
        arg(&pack),
    ];
    args.extend_from_slice(extra);
    let Started {
        mut server,
        url,
        first: _,
        stderr,
    } = start(env.command(&args));
    // The server's log, drained so it never blocks on a full pipe.
    let (lines, log) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines() {
            if lines.send(line.unwrap_or_default()).is_err() {
                break;
            }
        }
    });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/mcp_ts_client.mjs");
    let output = Command::new(&node)
        .args([script, &modules, &url, arg(&token_file)])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let left = Instant::now();
    assert!(
        output.status.success(),
        "the TypeScript client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut discarded = None;
    while left.elapsed() < wait {
        if session_end_discards(env) > 0 {
            discarded = Some(left.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = stop(&mut server);
    assert!(status.success(), "{status}");
    let log: Vec<String> = log.try_iter().collect();
    eprintln!("xcsh mcp --http: {}", log.join("\n  "));
    (seen, discarded)
}

#[test]
fn the_typescript_sdk_sees_resolve_and_its_close_ends_a_pending_session_soon() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let (seen, discarded) =
        typescript_close(&env, &["--orphan-timeout", "1"], Duration::from_secs(30));
    assert_eq!(
        seen["tools"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );
    assert_eq!(
        seen["nothingPending"],
        json!({"isError": true, "texts": [NOTHING_PENDING]})
    );
    assert_eq!(
        seen["preview"]["texts"],
        json!([
            "Batch rename preview (1 file):\n  a.txt → old-a.txt",
            PREVIEW_REMINDER
        ])
    );
    assert_eq!(seen["listChanged"], 0);
    let discarded = discarded.expect("the pending action was discarded after close()");
    eprintln!("discarded {discarded:.2?} after the TypeScript client exited (close(), no DELETE)");
    // The grace period (1 s from close(), which comes before the client
    // process has finished exiting), plus a loaded machine's delays; the
    // idle timeout would have been 300 s.
    assert!(discarded < Duration::from_secs(15), "{discarded:?}");
    assert_eq!(env.files(), ["a.txt"]);
}

#[test]
fn without_the_orphan_timeout_a_closed_session_waits_for_the_idle_timeout() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let (seen, discarded) = typescript_close(
        &env,
        &["--orphan-timeout", "0", "--idle-timeout", "300"],
        Duration::from_secs(4),
    );
    assert!(seen["sessionId"].is_string(), "{seen}");
    assert_eq!(discarded, None, "nothing ends the session before 300 s");
    // The shutdown ended it, with the same discard.
    assert_eq!(session_end_discards(&env), 1);
}
