//! `xcsh mcp --http`'s default bearer token file: in the user's xcsh data
//! directory, readable by the user only, the same token at every start (so
//! a client configuration that holds it keeps working), and a new one when
//! the file is gone or others could read it.

use std::os::unix::fs::PermissionsExt as _;
use std::process::Child;

use crate::mcp_http_server::{self, Started};
use crate::raw_http::post;
use crate::support::{Env, batch_rename};

const INITIALIZE: &str = r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}"#;

/// Starts `xcsh mcp --http` without `--token-file`; its URL and first line.
fn start(env: &Env) -> (Child, String, String) {
    let mut command = env.command(&["mcp", "--http", "127.0.0.1:0", "--plugin"]);
    command.arg(batch_rename());
    let Started {
        server,
        url,
        first,
        mut stderr,
    } = mcp_http_server::start(command);
    // Kept open (and drained) while the server runs, as a client's log would.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (server, url, first)
}

fn stop(mut server: Child) {
    let status = mcp_http_server::stop(&mut server);
    assert!(status.success(), "{status}");
}

#[test]
fn the_default_token_file_is_the_users_only_and_kept_across_starts() {
    let env = Env::new();
    // In the private directory no isolated pack can read.
    let token_file = env.home.path().join(".local/share/xcsh/private/mcp-token");
    let mode = || std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777;
    let token = || {
        std::fs::read_to_string(&token_file)
            .unwrap()
            .trim()
            .to_owned()
    };

    let (server, url, first) = start(&env);
    assert_eq!(
        first,
        format!(
            "xcsh: serving MCP on {url} (bearer token in {})\n",
            token_file.display()
        )
    );
    assert_eq!(mode(), 0o600);
    let issued = token();
    assert_eq!(issued.len(), 64, "{issued:?}");
    let refused = post(&url, &[], INITIALIZE);
    assert_eq!(refused.status, 401);
    assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
    assert_eq!(
        refused.body,
        "Unauthorized: send the token from the xcsh token file as \"Authorization: Bearer TOKEN\""
    );
    let bearer = format!("Bearer {issued}");
    let admitted = post(&url, &[("Authorization", &bearer)], INITIALIZE);
    assert_eq!(admitted.status, 200, "{admitted:?}");
    assert_eq!(
        admitted.messages()[0]["result"]["serverInfo"]["name"],
        "xcsh"
    );
    stop(server);

    // The next start serves the same token: a client's configuration holds.
    let (server, url, _) = start(&env);
    assert_eq!(token(), issued);
    assert_eq!(mode(), 0o600);
    let admitted = post(&url, &[("Authorization", &bearer)], INITIALIZE);
    assert_eq!(admitted.status, 200, "{admitted:?}");
    stop(server);

    // A token others could read is never used: the next start writes a new
    // one, readable by the user only, and the old one is refused.
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (server, url, _) = start(&env);
    let renewed = token();
    assert_ne!(renewed, issued);
    assert_eq!(mode(), 0o600);
    assert_eq!(
        post(&url, &[("Authorization", &bearer)], INITIALIZE).status,
        401
    );
    let admitted = post(
        &url,
        &[("Authorization", &format!("Bearer {renewed}"))],
        INITIALIZE,
    );
    assert_eq!(admitted.status, 200, "{admitted:?}");
    stop(server);

    // Deleting the file gets a new token at the next start.
    std::fs::remove_file(&token_file).unwrap();
    let (server, _, _) = start(&env);
    assert_ne!(token(), renewed);
    assert_eq!(mode(), 0o600);
    stop(server);
}
