//! Starting and stopping `xcsh mcp --http` for the HTTP tests: the server
//! prints its address on its first stderr line; SIGTERM ends it.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, ChildStderr, Command, ExitStatus, Stdio};

/// A running server: the process, its URL, its first stderr line and the
/// rest of its stderr, still to be read.
pub struct Started {
    pub server: Child,
    pub url: String,
    pub first: String,
    pub stderr: BufReader<ChildStderr>,
}

/// Starts `command` (an `xcsh mcp --http …` command) and reads the
/// address it serves on.
pub fn start(mut command: Command) -> Started {
    let mut server = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    let url = first
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_owned();
    Started {
        server,
        url,
        first,
        stderr,
    }
}

/// Sends the server SIGTERM and waits for it.
pub fn stop(server: &mut Child) -> ExitStatus {
    let killed = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    server.wait().unwrap()
}
