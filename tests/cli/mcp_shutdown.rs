//! `xcsh mcp` ending while a person is being asked: whether the client
//! closes standard input or stops the server with SIGTERM, the question is
//! cancelled at once, the action is discarded as at every session end, its
//! discard is in the journal, and the process exits within a second (MCP
//! clients' close sequences kill a server that takes two).

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Env, arg, batch_rename};

/// How the test ends the connection.
#[derive(Clone, Copy, Debug)]
enum End {
    CloseInput,
    Terminate,
}

/// A raw JSON-RPC client of `xcsh mcp --ask all`.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl Client {
    fn start(env: &Env) -> Self {
        let mut child = env
            .command(&["mcp", "--ask", "all", "--plugin", arg(&batch_rename())])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                let _ = send.send(serde_json::from_str(&line).unwrap());
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin.as_mut().unwrap(), "{message}").unwrap();
    }

    /// The next message from the server that `matches`.
    fn wait_for(&mut self, matches: impl Fn(&Value) -> bool) -> Value {
        loop {
            let message = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .expect("the server answered in time");
            self.seen.push(message.clone());
            if matches(&message) {
                return message;
            }
        }
    }

    /// Waits for the process to exit; how long it took from `since`.
    fn exit_time(&mut self, since: Instant) -> Duration {
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return since.elapsed();
            }
            if since.elapsed() > Duration::from_secs(20) {
                self.child.kill().unwrap();
                panic!("xcsh mcp did not exit");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// The rest of what the server wrote, after it exited.
    fn rest(&mut self) -> Vec<Value> {
        self.seen.extend(self.lines.iter());
        std::mem::take(&mut self.seen)
    }
}

/// Previews a rename, asks to apply it, and ends the connection `end`'s way
/// while the person is being asked; what the server did then.
fn end_while_asking(end: End) {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let mut client = Client::start(&env);
    client.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    client.wait_for(|m| m["id"] == 1);
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    client.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "batch_rename_preview",
        "arguments": {"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "old-"}}}}),
    );
    client.wait_for(|m| m["id"] == 2);
    client.send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "resolve", "arguments": {"action": "apply", "reason": "sure"}}}),
    );
    let question = client.wait_for(|m| m["method"] == "elicitation/create");

    let since = Instant::now();
    match end {
        End::CloseInput => drop(client.stdin.take()),
        End::Terminate => {
            let killed = Command::new("kill")
                .args(["-TERM", &client.child.id().to_string()])
                .status()
                .unwrap();
            assert!(killed.success());
        }
    }
    let took = client.exit_time(since);
    assert!(
        took < Duration::from_secs(1),
        "{end:?}: exited after {took:?}"
    );

    // The question was cancelled, and the call it held answered so. A
    // client still connected is told; once input has closed, rmcp only
    // drains responses, and the client that closed it asks nothing more.
    let rest = client.rest();
    let cancelled = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
        "requestId": question["id"], "reason": "the xcsh session is ending"}});
    if let End::Terminate = end {
        assert!(rest.contains(&cancelled), "{rest:#?}");
    }
    // After a signal the answer gets a moment to go out before the
    // connection closes, but is not waited for past it.
    let answered = rest.iter().find(|m| m["id"] == 3);
    if let (End::CloseInput, None) = (end, answered) {
        panic!("resolve not answered: {rest:#?}");
    }
    if let Some(answered) = answered {
        assert_eq!(
            answered["result"]["content"][0]["text"],
            "Apply needs a person's approval (policy ask for batch_rename_preview), but the MCP client went away before its user answered. The action is still pending."
        );
    }

    // Discarded as at every session end, never applied, and journaled.
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut client.child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(
        stderr.contains(
            "warning: Discarded pending action \"Batch Rename: 1 file\": session ended without resolve"
        ),
        "{stderr}"
    );
    assert_eq!(env.files(), ["a.txt"]);
    let journal = std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl")).unwrap();
    let events: Vec<(String, String, String)> = journal
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|line| {
            let field = |name: &str| line[name].as_str().unwrap_or("").to_owned();
            (field("event"), field("outcome"), field("decidedBy"))
        })
        .collect();
    let event = |event: &str, outcome: &str, by: &str| (event.into(), outcome.into(), by.into());
    assert_eq!(
        events,
        [
            event("push", "pushed", ""),
            event("answer", "unavailable", "nobody"),
            event("resolve", "refused", "nobody"),
            event("resolve", "discarded", "session end"),
        ]
    );
}

#[test]
fn closing_input_while_a_person_is_asked_cancels_discards_and_exits_at_once() {
    end_while_asking(End::CloseInput);
}

#[test]
fn sigterm_while_a_person_is_asked_cancels_discards_and_exits_at_once() {
    end_while_asking(End::Terminate);
}
