//! `xcsh mcp --http` under the official MCP Python SDK's Streamable HTTP
//! client: a session per `Mcp-Session-Id` across POSTs, sessions
//! independent of each other, requests without the token or from another
//! Host or Origin refused, and DELETE, the idle timeout and the shutdown
//! each ending a session with the usual discard in the journal.

use std::io::Read as _;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use xcsh_core::PREVIEW_REMINDER;
use xcsh_test_support::mcp_python;

use crate::mcp_http_server::{Started, start, stop};
use crate::support::{Env, arg, batch_rename};

#[test]
fn http_sessions_keep_their_own_stacks_refuse_strangers_and_end_with_the_usual_discard() {
    let env = Env::new();
    env.trust();
    for file in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        env.write(file, file);
    }
    let token_file = env.home.path().join("token");
    let Started {
        mut server,
        url,
        first,
        mut stderr,
    } = start(env.command(&[
        "mcp",
        "--http",
        "127.0.0.1:0",
        // Per-session stacks show in each session's tool list.
        "--list-resolve",
        "while-pending",
        // Long enough that session a, idle while b works, outlives a
        // loaded machine's slow steps; short enough to wait for.
        "--idle-timeout",
        "5",
        "--token-file",
        arg(&token_file),
        "--plugin",
        arg(&batch_rename()),
    ]));
    assert_eq!(
        first,
        format!(
            "xcsh: serving MCP on {url} (bearer token in {})\n",
            token_file.display()
        )
    );

    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/mcp_http_client.py");
    let output = Command::new(mcp_python())
        .args([script, &url, arg(&token_file)])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "mcp_http_client.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let seen: Value = serde_json::from_slice(&output.stdout).unwrap();

    // Two sessions at once, each with its own stack, across POSTs.
    let preview = |name: &str| {
        json!([
            format!("Batch rename preview (1 file):\n  {name} → old-{name}"),
            PREVIEW_REMINDER
        ])
    };
    assert_eq!(seen["aPreview"]["texts"], preview("a.txt"));
    assert_eq!(seen["bPreview"]["texts"], preview("b.txt"));
    assert_eq!(
        seen["bDiscard"]["texts"],
        json!(["Discarded batch rename of 1 file; nothing was renamed:\n  b.txt → old-b.txt"])
    );
    assert_eq!(
        seen["aToolsAfterBDiscard"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );
    assert_eq!(
        seen["bToolsAfterDiscard"],
        json!(["ast_edit", "batch_rename_preview"])
    );
    assert_eq!(
        seen["aApply"]["texts"],
        json!(["Renamed 1 file:\n  a.txt → old-a.txt"])
    );
    assert_eq!(
        seen["aToolsAfterApply"],
        json!(["ast_edit", "batch_rename_preview"])
    );
    assert_eq!(seen["deletedPreview"]["texts"], preview("c.txt"));
    assert_eq!(seen["idlePreview"]["texts"], preview("d.txt"));

    // Strangers never reach a session.
    let refused = |status: u16| json!({"status": status, "sessionId": null});
    assert_eq!(
        seen["refused"],
        json!({
            "noToken": refused(401),
            "wrongToken": refused(401),
            "wrongHost": refused(403),
            "foreignOrigin": refused(403),
        })
    );

    // The idle session ends after its timeout (5 s), then a signal ends
    // the server.
    let journal_path = env.work().join(".xcsh/journal.jsonl");
    let discards = || {
        std::fs::read_to_string(&journal_path)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|line| line["event"] == "resolve" && line["decidedBy"] == "session end")
            .count()
    };
    let waited = Instant::now();
    while discards() < 2 && waited.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(discards(), 2, "DELETE and the idle timeout each discard");
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
        ["warning: Discarded pending action \"Batch Rename: 1 file\": session ended without resolve";
            2],
        "{rest}"
    );

    // Nothing applied without resolve; every push and resolve journaled.
    let mut files = env.files();
    files.sort();
    assert_eq!(files, ["b.txt", "c.txt", "d.txt", "old-a.txt"]);
    let journal = std::fs::read_to_string(&journal_path).unwrap();
    let mut events: Vec<(String, String)> = journal
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|line| {
            let field = |name: &str| line[name].as_str().unwrap_or("").to_owned();
            (field("event"), field("outcome"))
        })
        .collect();
    events.sort();
    let event = |event: &str, outcome: &str| (event.to_owned(), outcome.to_owned());
    assert_eq!(
        events,
        [
            event("push", "pushed"),
            event("push", "pushed"),
            event("push", "pushed"),
            event("push", "pushed"),
            event("resolve", "applied"),
            event("resolve", "discarded"),
            event("resolve", "discarded"),
            event("resolve", "discarded"),
        ]
    );
}
