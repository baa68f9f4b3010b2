//! `xcsh mcp` on the wire: raw lines in, one JSON-RPC answer out for each
//! request, however bad the line (no client library in between).

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::Env;

/// `xcsh mcp` with its standard input and a reader of its answers.
pub(crate) struct Server {
    child: std::process::Child,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<Value>,
}

impl Server {
    fn start(env: &Env) -> Self {
        Self::start_with(env, &["mcp"])
    }

    /// `xcsh ARGS` (an `mcp` command line) in `env`.
    pub(crate) fn start_with(env: &Env, args: &[&str]) -> Self {
        let mut child = env
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let line = line.unwrap();
                let value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                if send.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Self {
            child,
            stdin,
            answers,
        }
    }

    pub(crate) fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The handshake of a 2025-11-25 client that asks for nothing: request
    /// 1, `initialize`, answered, then `notifications/initialized`.
    pub(crate) fn initialize(&mut self) {
        self.send(INITIALIZE.as_bytes());
        self.until(1);
        self.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// Sends one JSON-RPC message.
    pub(crate) fn send_json(&mut self, message: &Value) {
        self.send(message.to_string().as_bytes());
    }

    /// Every message up to and including the response to request `id`.
    pub(crate) fn until(&self, id: u64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.answer();
            let done = message["id"] == id;
            seen.push(message);
            if done {
                return seen;
            }
        }
    }

    /// Closes the server's input; its exit status and every message it
    /// wrote after the ones read.
    pub(crate) fn finish(mut self) -> (std::process::ExitStatus, Vec<Value>) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        (status, self.answers.iter().collect())
    }

    /// The next answer; fails the test rather than waiting forever.
    pub(crate) fn answer(&self) -> Value {
        self.answers
            .recv_timeout(Duration::from_secs(30))
            .expect("no answer within 30 s")
    }
}

fn error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

const INITIALIZE: &str = r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}"#;

#[test]
fn a_request_before_initialize_is_told_to_initialize_first() {
    let env = Env::new();
    let mut server = Server::start(&env);
    server.send(br#"{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}"#);
    assert_eq!(
        server.answer(),
        error(
            json!(9),
            -32600,
            "Server not initialized: the first request must be \"initialize\""
        )
    );
    // A notification before initialize is ignored, not the end of the server.
    server.send(br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
    server.send(INITIALIZE.as_bytes());
    let initialized = server.answer();
    assert_eq!(initialized["id"], 1);
    assert_eq!(initialized["result"]["protocolVersion"], "2025-11-25");
    server.send(br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
    server.send(br#"{"jsonrpc": "2.0", "id": 10, "method": "tools/list"}"#);
    let listed = server.answer();
    assert_eq!(listed["id"], 10);
    // `resolve` is listed always (the default).
    assert_eq!(listed["result"]["tools"][0]["name"], "resolve");
    assert_eq!(listed["result"]["tools"][1]["name"], "ast_edit");
}

#[test]
fn garbage_and_over_large_messages_get_json_rpc_errors_and_the_session_goes_on() {
    let env = Env::new();
    let mut server = Server::start(&env);
    server.send(INITIALIZE.as_bytes());
    assert_eq!(server.answer()["id"], 1);
    server.send(br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);

    server.send(b"garbage");
    assert_eq!(
        server.answer(),
        error(Value::Null, -32700, "Parse error: expected value")
    );
    server.send(b"[1, 2]");
    assert_eq!(
        server.answer(),
        error(
            Value::Null,
            -32600,
            "Invalid request: a message must be a JSON object"
        )
    );
    server.send(br#"{"jsonrpc": "2.0", "id": 3, "method": 5}"#);
    assert_eq!(
        server.answer(),
        error(
            json!(3),
            -32600,
            "Invalid request: \"method\" must be a string"
        )
    );

    // 17 MiB: over the limit; the id comes first, so the answer names it.
    let pad = "A".repeat(17 * 1024 * 1024);
    let huge = format!(
        r#"{{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {{"name": "ast_edit", "arguments": {{"pad": "{pad}"}}}}}}"#
    );
    server.send(huge.as_bytes());
    assert_eq!(
        server.answer(),
        error(json!(4), -32600, "Message too large: over 16 MiB; skipped")
    );
    // Without a readable id the answer's id is null.
    let headless = format!(r#"{{"params": {{"pad": "{pad}"}}, "id": 5}}"#);
    server.send(headless.as_bytes());
    assert_eq!(
        server.answer(),
        error(
            Value::Null,
            -32600,
            "Message too large: over 16 MiB; skipped"
        )
    );

    server.send(br#"{"jsonrpc": "2.0", "id": 6, "method": "ping"}"#);
    assert_eq!(
        server.answer(),
        json!({"jsonrpc": "2.0", "id": 6, "result": {}})
    );
    // 2026-07-28 removed `ping`: a request of that revision is told so.
    server.send(
        br#"{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}"#,
    );
    assert_eq!(server.answer(), error(json!(7), -32601, "ping"));
    drop(server.stdin.take());
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
}
