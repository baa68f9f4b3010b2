//! The sandbox of an isolated pack: it writes only in the session's working
//! and temporary directories and opens no network connection, unless the
//! user's config grants the capability. A pack that tries gets an ordinary
//! I/O error, and nothing is written or connected.

use std::io::{ErrorKind, Read as _};
use std::net::TcpListener;
use std::path::Path;

use serde_json::json;
use tempfile::TempDir;
use xcsh_isolate::Capability;
use xcsh_isolate_protocol::SandboxStatus;

use super::{Options, TestAgent, entry};
use crate::support::pack_path;

const PROBE: &str = "fixture-sandbox-probe";

/// True when the kernel enforces the sandbox (then the refusals are
/// checked); where it has no Landlock, isolated packs run unconfined and
/// say so, and the same calls succeed.
fn enforced(agent: &TestAgent) -> bool {
    match &agent.agent.isolated[0].sandbox {
        SandboxStatus::Enforced { .. } | SandboxStatus::Namespaces { .. } => true,
        SandboxStatus::Unconfined { .. } => false,
        partial => panic!("this test expects all or nothing: {partial:?}"),
    }
}

fn probe(capabilities: Vec<Capability>) -> TestAgent {
    TestAgent::new(
        &[PROBE],
        &[],
        Options {
            packs: vec![(pack_path(PROBE), entry(None, capabilities))],
            ..Options::default()
        },
    )
}

/// A directory outside the working and temporary directories (which the
/// sandbox lets a pack write in): the target directory's scratch space,
/// unless the clone itself lives under the temporary directory, then
/// `/var/tmp` or the home directory.
pub(super) fn outside() -> TempDir {
    let temp = std::env::temp_dir()
        .canonicalize()
        .expect("the temporary directory exists");
    let candidates = [
        Some(std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))),
        Some(std::path::PathBuf::from("/var/tmp")),
        std::env::var_os("HOME").map(std::path::PathBuf::from),
    ];
    candidates
        .into_iter()
        .flatten()
        .filter_map(|dir| dir.canonicalize().ok())
        .filter(|dir| !dir.starts_with(&temp))
        .find_map(|dir| TempDir::new_in(dir).ok())
        .expect("a writable directory outside the temporary directory")
}

fn write(agent: &TestAgent, path: &Path) -> xcsh_core::ToolResult {
    agent.call(
        "probe_write",
        json!({"path": path.to_str().unwrap(), "text": "written"}),
    )
}

#[test]
fn an_isolated_pack_writes_in_the_working_directory_only() {
    let agent = probe(Vec::new());
    let inside = write(&agent, Path::new("inside.txt"));
    assert!(!inside.is_error, "{}", inside.text());
    assert_eq!(agent.files(), ["inside.txt"]);

    let elsewhere = outside();
    let target = elsewhere.path().join("outside.txt");
    let refused = write(&agent, &target);
    if !enforced(&agent) {
        assert!(!refused.is_error, "unconfined: {}", refused.text());
        return;
    }
    assert!(refused.is_error);
    // Read-only in the namespace sandbox; refused by Landlock alone.
    let why = match &agent.agent.isolated[0].sandbox {
        SandboxStatus::Namespaces { .. } => "Read-only file system (os error 30)",
        _ => "Permission denied (os error 13)",
    };
    assert_eq!(
        refused.text(),
        format!("cannot write {}: {why}", target.display())
    );
    assert!(!target.exists(), "nothing is written");
}

#[test]
fn write_anywhere_lets_an_isolated_pack_write_outside() {
    let agent = probe(vec![Capability::WriteAnywhere]);
    let elsewhere = outside();
    let target = elsewhere.path().join("outside.txt");
    let written = write(&agent, &target);
    assert!(!written.is_error, "{}", written.text());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "written");
}

fn connect(agent: &TestAgent, listener: &TcpListener) -> xcsh_core::ToolResult {
    let address = listener.local_addr().unwrap().to_string();
    agent.call("probe_connect", json!({"address": address}))
}

#[test]
fn an_isolated_pack_opens_no_network_connection() {
    let agent = probe(Vec::new());
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = connect(&agent, &listener);
    if !enforced(&agent) {
        assert!(!refused.is_error, "unconfined: {}", refused.text());
        return;
    }
    assert!(refused.is_error);
    assert_eq!(
        refused.text(),
        format!(
            "cannot connect to {}: Operation not permitted (os error 1)",
            listener.local_addr().unwrap()
        )
    );
    listener.set_nonblocking(true).unwrap();
    let accepted = listener.accept().map(|_| ()).unwrap_err();
    assert_eq!(accepted.kind(), ErrorKind::WouldBlock, "nothing connected");
}

#[test]
fn network_lets_an_isolated_pack_connect() {
    let agent = probe(vec![Capability::Network]);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let connected = connect(&agent, &listener);
    assert!(!connected.is_error, "{}", connected.text());
    let (mut stream, _) = listener.accept().unwrap();
    let mut line = String::new();
    stream.read_to_string(&mut line).unwrap();
    assert_eq!(line, "hello from probe\n");
}
