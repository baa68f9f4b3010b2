//! The 2026-07-28 revision over `xcsh mcp --http`, under the official MCP
//! Python SDK's Streamable HTTP client in its default mode (which
//! negotiates that revision): served as over standard input and output,
//! one session for the server, so a preview and its `resolve` in separate
//! POSTs meet (under `--ask all`, the person asked through an
//! input-required result and answering in the retried call), the shutdown
//! discards what is left (journaled), and `ping`, which the revision
//! removed, is `-32601`.

use std::io::Read as _;
use std::process::Command;

use serde_json::{Value, json};
use xcsh_core::PREVIEW_REMINDER;
use xcsh_test_support::mcp_python;

use crate::mcp_http_server::{Started, start, stop};
use crate::support::{Env, arg, batch_rename};

#[test]
fn http_serves_2026_07_28_requests_from_one_session_as_stdio_does() {
    let env = Env::new();
    // Trusted, so the journal is the project's own.
    env.trust();
    env.write("m.txt", "m");
    env.write("n.txt", "n");
    let token_file = env.home.path().join("token");
    let Started {
        mut server,
        url,
        first: _,
        mut stderr,
    } = start(env.command(&[
        "mcp",
        "--http",
        "127.0.0.1:0",
        // Per-session stacks show in each session's tool list.
        "--list-resolve",
        "while-pending",
        "--ask",
        "all",
        "--token-file",
        arg(&token_file),
        "--plugin",
        arg(&batch_rename()),
    ]));

    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cli/mcp_http_modern_client.py"
    );
    let output = Command::new(mcp_python())
        .args([script, &url, arg(&token_file)])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "mcp_http_modern_client.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();

    assert_eq!(seen["protocolVersion"], "2026-07-28");
    assert_eq!(seen["secondProtocolVersion"], "2026-07-28");
    let preview = |name: &str| {
        json!([
            format!("Batch rename preview (1 file):\n  {name} → old-{name}"),
            PREVIEW_REMINDER
        ])
    };
    assert_eq!(
        seen["toolsAtStart"],
        json!(["ast_edit", "batch_rename_preview"])
    );
    assert_eq!(seen["preview"]["texts"], preview("m.txt"));
    assert_eq!(seen["preview"]["modelSees"], preview("m.txt"));
    assert_eq!(
        seen["toolsWhilePending"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );
    assert_eq!(
        seen["apply"]["texts"],
        json!(["Renamed 1 file:\n  m.txt → old-m.txt"])
    );
    assert_eq!(seen["apply"]["isError"], false);
    assert_eq!(
        seen["asked"],
        json!([
            "The model wants to apply \"Batch Rename: 1 file\" (from batch_rename_preview).\nIts reason: m goes\n\nPreview:\nBatch rename preview (1 file):\n  m.txt → old-m.txt"
        ])
    );
    assert_eq!(
        seen["toolsAfterApply"],
        json!(["ast_edit", "batch_rename_preview"])
    );
    assert_eq!(seen["leftPending"]["texts"], preview("n.txt"));
    assert_eq!(
        seen["ping"],
        json!({
            "status": 404,
            "sessionId": null,
            "body": {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "ping"}}
        })
    );

    // The shutdown ends the server's session: the rename left pending is
    // discarded, warned about and journaled.
    let status = stop(&mut server);
    assert!(status.success(), "{status}");
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let warnings: Vec<&str> = rest
        .lines()
        .filter(|line| line.contains("Discarded pending action"))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: Discarded pending action \"Batch Rename: 1 file\": session ended without resolve"
        ],
        "{rest}"
    );
    let mut files = env.files();
    files.sort();
    assert_eq!(files, ["n.txt", "old-m.txt"]);
    let journal = std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl")).unwrap();
    let events: Vec<(String, String, String)> = journal
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|line| {
            let field = |name: &str| line[name].as_str().unwrap_or("").to_owned();
            (field("event"), field("outcome"), field("decidedBy"))
        })
        .collect();
    let event = |event: &str, outcome: &str, by: &str| {
        (event.to_owned(), outcome.to_owned(), by.to_owned())
    };
    assert_eq!(
        events,
        [
            event("push", "pushed", ""),
            event("answer", "asked", "person"),
            event("answer", "approve", "person"),
            event("resolve", "applied", "person"),
            event("push", "pushed", ""),
            event("resolve", "discarded", "session end"),
        ]
    );
}
