//! `xcsh mcp` driven by a real MCP client the project does not implement:
//! the official Python SDK (`mcp` on PyPI), which the test support crate
//! installs into a virtual environment under the target directory on first
//! use. `mcp_client.py` runs the sessions and prints what it saw; this test
//! compares it with exact strings.

use std::process::Command;

use serde_json::{Value, json};
use xcsh_core::PREVIEW_REMINDER;
use xcsh_test_support::{MCP_SDK, mcp_python};

use crate::support::{Env, XCSH, arg, batch_rename};

/// What the Python client saw, as JSON; `options` go to `xcsh mcp`.
fn run_client(env: &Env, options: &[&str]) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/mcp_client.py");
    let python = mcp_python();
    let output = Command::new(python)
        .args([script, XCSH, arg(&batch_rename()), arg(env.work())])
        .args(options)
        .env("HOME", env.home.path())
        .env_remove("XCSH_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .output()
        .unwrap_or_else(|error| panic!("cannot run {} ({error})", python.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() != Some(3),
        "{} lacks the official MCP Python SDK ({MCP_SDK}): {stderr}",
        python.display()
    );
    assert!(output.status.success(), "mcp_client.py failed: {stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stdout)))
}

/// An error result whose only text is `text`, which a client model reads
/// whichever field its client prefers.
fn error_result(text: &str) -> Value {
    json!({"isError": true, "texts": [text], "modelSees": [text], "structured": null, "details": null})
}

/// The lines of a log that say what was discarded at the end.
fn discard_lines(stderr: &Value) -> Vec<&str> {
    stderr
        .as_str()
        .unwrap()
        .lines()
        .filter(|line| line.contains("Discarded pending action"))
        .collect()
}

const DISCARDED_AT_END: &str =
    "warning: Discarded pending action \"Batch Rename: 1 file\": session ended without resolve";

#[test]
fn an_mcp_client_previews_resolves_and_is_told_when_resolve_comes_and_goes() {
    mcp_session_over(&["--list-resolve", "while-pending"]);
}

#[test]
fn an_mcp_client_sees_the_same_with_the_pack_isolated() {
    mcp_session_over(&["--list-resolve", "while-pending", "--isolate"]);
}

/// The whole client session, with `options` for `xcsh mcp`.
fn mcp_session_over(options: &[&str]) {
    let env = Env::new();
    env.trust();
    for file in ["draft-a.md", "draft-b.md", "notes.txt", "modern.txt"] {
        env.write(file, file);
    }
    let seen = run_client(&env, options);
    let old = &seen["handshake"];

    // initialize
    assert_eq!(old["protocolVersion"], "2025-11-25");
    assert_eq!(old["serverName"], "xcsh");
    assert_eq!(old["listChangedCapability"], true);

    // tools/list: resolve only while something is pending; hints as annotations
    let idle = json!(["ast_edit", "batch_rename_preview"]);
    assert_eq!(old["toolsAtStart"], idle);
    assert_eq!(
        old["previewAnnotations"],
        json!({"title": "Batch Rename", "readOnlyHint": true, "destructiveHint": false, "openWorldHint": false})
    );
    assert_eq!(old["previewSchemaRequired"], json!(["files", "rule"]));
    assert_eq!(
        old["toolsWhilePending"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );
    assert_eq!(
        old["resolveAnnotations"],
        json!({"title": "Resolve", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false})
    );

    // a preview ends with the spec's reminder; list_changed on every change
    let preview =
        "Batch rename preview (2 files):\n  draft-a.md → final-a.md\n  draft-b.md → final-b.md";
    assert_eq!(old["preview"]["texts"], json!([preview, PREVIEW_REMINDER]));
    // A client that hands its model `structuredContent` when present still
    // gives it the reminder: details are under `_meta`, not there.
    assert_eq!(old["preview"]["modelSees"], old["preview"]["texts"]);
    assert_eq!(old["preview"]["structured"], Value::Null);
    assert_eq!(old["preview"]["isError"], false);
    assert_eq!(
        old["preview"]["details"],
        json!({"renames": [{"from": "draft-a.md", "to": "final-a.md"}, {"from": "draft-b.md", "to": "final-b.md"}], "unchanged": []})
    );
    assert_eq!(old["listChangedAfterPreview"], 1);

    // resolve apply
    assert_eq!(
        old["apply"]["texts"],
        json!(["Renamed 2 files:\n  draft-a.md → final-a.md\n  draft-b.md → final-b.md"])
    );
    assert_eq!(old["apply"]["isError"], false);
    assert_eq!(old["apply"]["modelSees"], old["apply"]["texts"]);
    assert_eq!(old["apply"]["details"]["action"], "apply");
    assert_eq!(old["apply"]["details"]["label"], "Batch Rename: 2 files");
    assert_eq!(old["listChangedAfterApply"], 2);
    assert_eq!(old["toolsAfterApply"], idle);

    // resolve discard
    let notes = "Batch rename preview (1 file):\n  notes.txt → notes-old.txt";
    assert_eq!(
        old["secondPreview"]["texts"],
        json!([notes, PREVIEW_REMINDER])
    );
    assert_eq!(old["listChangedAfterSecondPreview"], 3);
    assert_eq!(
        old["discard"]["texts"],
        json!([
            "Discarded batch rename of 1 file; nothing was renamed:\n  notes.txt → notes-old.txt"
        ])
    );
    assert_eq!(old["discard"]["modelSees"], old["discard"]["texts"]);
    assert_eq!(old["discard"]["details"]["action"], "discard");
    assert_eq!(old["discard"]["details"]["reason"], "the notes are current");
    assert_eq!(old["listChangedAfterDiscard"], 4);
    assert_eq!(old["toolsAfterDiscard"], idle);

    // invalid calls: tool errors are results with isError, protocol errors JSON-RPC errors
    assert_eq!(
        old["unknownTool"],
        error_result("Unknown tool: no_such_tool")
    );
    assert_eq!(
        old["invalidArguments"],
        error_result(
            "Invalid arguments for batch_rename_preview: \"rule\" is a required property; /files: [] has less than 1 item"
        )
    );
    assert_eq!(
        old["resolveWithNothingPending"],
        error_result("No pending action to resolve. Nothing to apply or discard.")
    );
    assert_eq!(
        old["unknownMethod"],
        json!({"code": -32601, "message": "xcsh/no_such_method"})
    );
    assert_eq!(old["callWithoutName"]["code"], -32601);

    // disconnecting with a preview pending discards it through its reject
    assert_eq!(
        old["leftPending"]["texts"],
        json!([notes, PREVIEW_REMINDER])
    );
    assert_eq!(old["listChangedAtEnd"], 5);
    assert_eq!(old["otherNotifications"], json!([]));
    assert_eq!(discard_lines(&old["serverStderr"]), [DISCARDED_AT_END]);

    // 2026-07-28: discovery instead of initialize, list_changed on a listen stream
    let new = &seen["modern"];
    assert_eq!(new["protocolVersion"], "2026-07-28");
    assert_eq!(new["toolsAtStart"], idle);
    assert_eq!(new["honoredToolsListChanged"], true);
    let modern = "Batch rename preview (1 file):\n  modern.txt → old-modern.txt";
    assert_eq!(new["preview"]["texts"], json!([modern, PREVIEW_REMINDER]));
    assert_eq!(new["preview"]["modelSees"], new["preview"]["texts"]);
    assert_eq!(new["eventAfterPreview"], "ToolsListChanged");
    assert_eq!(
        new["toolsWhilePending"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );
    assert_eq!(
        new["discard"]["texts"],
        json!([
            "Discarded batch rename of 1 file; nothing was renamed:\n  modern.txt → old-modern.txt"
        ])
    );
    assert_eq!(new["eventAfterDiscard"], "ToolsListChanged");
    assert_eq!(new["toolsAfterDiscard"], idle);
    assert_eq!(new["eventAtEnd"], "ToolsListChanged");
    assert_eq!(new["serverStderr"], format!("{DISCARDED_AT_END}\n"));

    // nothing was applied without resolve
    assert_eq!(
        env.files(),
        ["final-a.md", "final-b.md", "modern.txt", "notes.txt"]
    );
}

#[test]
fn a_client_that_leaves_at_once_ends_the_server_quietly() {
    let env = Env::new();
    let output = env.run(&["mcp", "--plugin", arg(&batch_rename())], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stdout, "");
    assert_eq!(output.stderr, "");
}

/// What `mcp_approval_client.py` saw.
fn run_approval_client(env: &Env) -> Value {
    run_script(
        env,
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/cli/mcp_approval_client.py"
        ),
    )
}

/// What the client `script` saw.
fn run_script(env: &Env, script: &str) -> Value {
    let output = Command::new(mcp_python())
        .args([script, XCSH, arg(&batch_rename()), arg(env.work())])
        .env("HOME", env.home.path())
        .env_remove("XCSH_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .output()
        .expect("run the MCP approval client");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{script} failed: {stderr}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stdout)))
}

#[test]
fn an_ask_apply_is_put_to_the_clients_user_through_elicitation() {
    let env = Env::new();
    for file in ["a.txt", "b.txt", "c.txt"] {
        env.write(file, file);
    }
    let seen = run_approval_client(&env);

    // Accept: the request shows the preview, and the apply renames.
    let accept = &seen["accept"];
    assert_eq!(
        accept["asked"][0]["message"],
        "The model wants to apply \"Batch Rename: 1 file\" (from batch_rename_preview).\nIts reason: the model is sure\n\nPreview:\nBatch rename preview (1 file):\n  a.txt → old-a.txt"
    );
    assert_eq!(
        accept["asked"][0]["schema"]["properties"]["decision"]["enum"],
        json!(["apply", "decline"])
    );
    assert_eq!(accept["apply"]["isError"], false, "{accept}");
    assert_eq!(
        accept["apply"]["texts"],
        json!(["Renamed 1 file:\n  a.txt → old-a.txt"])
    );

    // Decline: discarded through reject, and the model reads the reason,
    // also under a client that prefers `structuredContent`.
    let decline = &seen["decline"];
    assert_eq!(decline["apply"]["isError"], true);
    let declined = json!([
        "A person declined to apply \"Batch Rename: 1 file\": it was discarded and nothing was applied. Their reason: b stays\nDiscarded batch rename of 1 file; nothing was renamed:\n  b.txt → old-b.txt"
    ]);
    assert_eq!(decline["apply"]["texts"], declined);
    assert_eq!(decline["apply"]["modelSees"], declined);
    assert_eq!(
        decline["toolsAfterApply"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );

    // No elicitation: an error saying so, which the model reads whichever
    // field its client prefers, and the action stays pending.
    let unsupported = &seen["unsupported"];
    assert_eq!(unsupported["asked"], json!([]));
    let cannot_ask = "Apply needs a person's approval (policy ask for batch_rename_preview), but this MCP client cannot ask its user: it does not support elicitation (form mode). The action is still pending.";
    assert_eq!(
        unsupported["apply"],
        json!({
            "isError": true,
            "texts": [cannot_ask],
            "modelSees": [cannot_ask],
            "structured": null,
            "details": {"action": "apply", "label": "Batch Rename: 1 file", "reason": "the model is sure", "sourceToolName": "batch_rename_preview"},
        })
    );
    assert_eq!(
        unsupported["toolsAfterApply"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );

    let mut files = env.files();
    files.sort();
    assert_eq!(files, ["b.txt", "c.txt", "old-a.txt"]);
}

/// The request a person is shown for the file `name`.
fn approval_message(name: &str) -> String {
    format!(
        "The model wants to apply \"Batch Rename: 1 file\" (from batch_rename_preview).\nIts reason: the model is sure\n\nPreview:\nBatch rename preview (1 file):\n  {name} → old-{name}"
    )
}

fn refused(text: &str) -> Value {
    json!({"isError": true, "texts": [text], "modelSees": [text]})
}

#[test]
fn an_ask_apply_is_put_to_a_2026_client_through_an_input_required_result() {
    let env = Env::new();
    env.trust();
    for file in ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"] {
        env.write(file, file);
    }
    let seen = run_script(
        &env,
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/mcp_mrtr_client.py"),
    );

    // Accept: the SDK's rounds put the request (with the preview) to the
    // callback, and the retry with its answer renames.
    let accept = &seen["accept"];
    assert_eq!(accept["protocolVersion"], "2026-07-28");
    assert_eq!(accept["asked"][0]["message"], approval_message("a.txt"));
    assert_eq!(
        accept["asked"][0]["schema"]["properties"]["decision"]["enum"],
        json!(["apply", "decline"])
    );
    assert_eq!(
        accept["apply"],
        json!({"isError": false, "texts": ["Renamed 1 file:\n  a.txt → old-a.txt"], "modelSees": ["Renamed 1 file:\n  a.txt → old-a.txt"]})
    );
    assert_eq!(
        accept["toolsAfterApply"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );

    // Decline: discarded through reject, and the model reads the reason.
    let decline = &seen["decline"];
    assert_eq!(decline["asked"][0]["message"], approval_message("b.txt"));
    assert_eq!(
        decline["apply"],
        refused(
            "A person declined to apply \"Batch Rename: 1 file\": it was discarded and nothing was applied. Their reason: b stays\nDiscarded batch rename of 1 file; nothing was renamed:\n  b.txt → old-b.txt"
        )
    );
    assert_eq!(
        decline["toolsAfterApply"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );

    // No elicitation declared: an error saying so; the action stays pending.
    let unsupported = &seen["unsupported"];
    assert_eq!(unsupported["asked"], json!([]));
    assert_eq!(
        unsupported["apply"],
        refused(
            "Apply needs a person's approval (policy ask for batch_rename_preview), but this MCP client cannot ask its user: its request declares no elicitation support (form mode) for an input-required result. The action is still pending."
        )
    );
    assert_eq!(
        unsupported["toolsAfterApply"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );

    // By hand: the input-required result, then retries that apply nothing.
    let by_hand = &seen["refused"];
    assert_eq!(
        by_hand["first"],
        json!({
            "inputRequired": {"approval": approval_message("d.txt")},
            "schema": {"approval": by_hand["first"]["schema"]["approval"].clone()},
            "hasState": true,
        })
    );
    assert_eq!(
        by_hand["first"]["schema"]["approval"]["required"],
        json!(["decision"])
    );
    let unknown = refused(STATE_UNKNOWN);
    assert_eq!(by_hand["forged"], unknown);
    assert_eq!(by_hand["noState"], unknown);
    assert_eq!(
        by_hand["noAnswer"],
        refused(
            "Apply needs a person's approval (policy ask for batch_rename_preview), but the client's retry carried no answer to the question. The action is still pending."
        )
    );
    assert_eq!(
        by_hand["cancel"],
        refused(
            "Apply not approved: the question was cancelled without an answer. The action is still pending."
        )
    );
    assert_eq!(by_hand["stale"], refused(STATE_STALE));
    assert_eq!(by_hand["reused"], unknown);
    assert_eq!(by_hand["firstStateNowStale"], refused(STATE_STALE));
    assert_eq!(by_hand["discardRetry"], refused(STATE_OTHER_CALL));
    assert_eq!(by_hand["goneState"], unknown);
    assert_eq!(
        by_hand["toolsAtEnd"],
        json!(["resolve", "ast_edit", "batch_rename_preview"])
    );

    let mut files = env.files();
    files.sort();
    assert_eq!(files, ["b.txt", "c.txt", "d.txt", "e.txt", "old-a.txt"]);

    // Every question and answer is journaled: by the person, or by nobody
    // when no person could be asked.
    let journal = std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl")).unwrap();
    let answers: Vec<(String, String)> = journal
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["event"] == "answer")
        .map(|line| {
            let outcome = line["outcome"].as_str().unwrap().to_owned();
            let by = if outcome == "unavailable" {
                "nobody"
            } else {
                "person"
            };
            assert_eq!(line["decidedBy"], by, "{line}");
            (outcome, line["reason"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    let answer = |outcome: &str, reason: &str| (outcome.to_owned(), reason.to_owned());
    assert_eq!(
        answers,
        [
            answer("asked", ""),
            answer("approve", ""),
            answer("asked", ""),
            answer("decline", "b stays"),
            answer("unavailable", ""),
            answer("asked", ""),
            answer("asked", ""),
            answer("unavailable", ""),
            answer("asked", ""),
            answer("cancel", ""),
            answer("asked", ""),
            answer("asked", ""),
            answer("asked", ""),
        ]
    );
}

const STATE_UNKNOWN: &str = "Refused: the request state names no approval this server is waiting for (it is unknown, forged, expired, already answered, or its action is no longer pending). Nothing was applied.";
const STATE_OTHER_CALL: &str = "Refused: the request state answers a question about applying the newest pending action, but this retry asks to discard it. Nothing was applied or discarded; retry the call that was asked about, or call resolve again without the state.";
const STATE_STALE: &str = "Refused: the answer is about an action that is no longer the newest pending one. Nothing was applied; call resolve again to be asked about the newest.";
