//! A pack's `report_progress` under `xcsh mcp`: `notifications/progress`
//! for a request with a `progressToken`, in order and before the response;
//! none for a request without one.

use serde_json::json;

use crate::mcp_wire::Server;
use crate::support::{Env, arg, pack_path};

#[test]
fn progress_reaches_an_mcp_client_that_asked_for_it_before_the_result() {
    let env = Env::new();
    let mut server = Server::start_with(
        &env,
        &["mcp", "--plugin", arg(&pack_path("fixture-hostile"))],
    );
    server.initialize();
    server.send_json(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}, "_meta": {"progressToken": "p-1"}}}),
    );
    let seen = server.until(2);
    let progress = |step: f64, message: &str| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
            "progressToken": "p-1", "progress": step, "message": message}})
    };
    assert_eq!(
        seen[..2],
        [progress(1.0, "step 1"), progress(2.0, "step 2")],
        "{seen:#?}"
    );
    assert_eq!(seen.len(), 3, "{seen:#?}");
    assert_eq!(seen[2]["result"]["content"][0]["text"], "done in mcp-1");

    // Without a token, no notifications.
    server.send_json(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "progress", "arguments": {}}}),
    );
    let seen = server.until(3);
    assert_eq!(seen.len(), 1, "{seen:#?}");
    assert_eq!(seen[0]["result"]["content"][0]["text"], "done in mcp-2");
    let (status, _) = server.finish();
    assert!(status.success());
}
