//! A pack's `Host::log` under `xcsh mcp`: the `logging` capability,
//! `logging/setLevel`, and the lines a pack writes during one of its calls
//! as `notifications/message` at or above the level set, in order and
//! before the response; none until the client sets a level. The same for
//! a pack run isolated, whose process sends its lines over the pipe.

use serde_json::json;

use crate::mcp_wire::Server;
use crate::support::{Env, arg, pack_path};

#[test]
fn a_packs_log_lines_reach_an_mcp_client_at_the_level_it_set() {
    log_lines_reach_the_client(&[]);
}

#[test]
fn an_isolated_packs_log_lines_reach_an_mcp_client_at_the_level_it_set() {
    log_lines_reach_the_client(&["--isolate"]);
}

/// `xcsh mcp FLAGS --plugin fixture-conformance`, driven on the wire.
fn log_lines_reach_the_client(flags: &[&str]) {
    let env = Env::new();
    let pack = pack_path("fixture-conformance");
    let mut args = vec!["mcp"];
    args.extend_from_slice(flags);
    args.extend(["--plugin", arg(&pack)]);
    let mut server = Server::start_with(&env, &args);
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "test_tool_with_logging", "arguments": {}}})
    };
    let set_level = |id: u64, level: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel",
            "params": {"level": level}})
    };
    server.send_json(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    let initialized = server.until(1);
    assert_eq!(
        initialized[0]["result"]["capabilities"]["logging"],
        json!({}),
        "{initialized:#?}"
    );
    server.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Before the client set a level: no notifications.
    server.send_json(&call(2));
    let seen = server.until(2);
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0]["result"]["content"][0]["text"], "Logged 3 lines.");

    server.send_json(&set_level(3, "debug"));
    assert_eq!(
        server.until(3),
        [json!({"jsonrpc": "2.0", "id": 3, "result": {}})]
    );
    server.send_json(&call(4));
    let seen = server.until(4);
    let line = |text: &str| {
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {
            "level": "info", "logger": "fixture-conformance", "data": text}})
    };
    assert_eq!(
        seen[..3],
        [
            line("Tool execution started"),
            line("Tool processing data"),
            line("Tool execution completed"),
        ],
        "{seen:#?}"
    );
    assert_eq!(seen.len(), 4, "{seen:#?}");
    assert_eq!(seen[3]["result"]["content"][0]["text"], "Logged 3 lines.");

    // Above the pack's lines: filtered out.
    server.send_json(&set_level(5, "warning"));
    assert_eq!(
        server.until(5),
        [json!({"jsonrpc": "2.0", "id": 5, "result": {}})]
    );
    server.send_json(&call(6));
    let seen = server.until(6);
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0]["result"]["content"][0]["text"], "Logged 3 lines.");
    let (status, _) = server.finish();
    assert!(status.success());
}
