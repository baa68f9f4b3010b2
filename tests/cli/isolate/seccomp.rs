//! The seccomp filter of an isolated pack's process (`xcsh-pack-host/src/seccomp.rs`),
//! in xcsh's own namespaces (no `bwrap` on `PATH`) and under Landlock
//! alone, both as the config asks (`namespaces = false`) and where user
//! namespaces are unavailable (`no_user_namespaces`): a
//! hostile pack starts processes, traces, uses key rings, namespaces,
//! mounts, io_uring and a terminal's input, and reaches UDP and Unix
//! sockets the test listens on. Each act is refused with the kernel's error, nothing reaches the
//! listeners, and the agent and the other pack's pending action are intact;
//! granted `processes` or `network`, the same calls succeed.

use std::io::{ErrorKind, Read as _};
use std::net::UdpSocket;
use std::os::unix::net::UnixListener;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use tempfile::TempDir;

use super::hostile::{call, hostile, isolated, landlock_only, run_between, texts};
use super::no_user_namespaces::{CANNOT, warning, without_user_namespaces};
use super::sandbox::outside;
use crate::support::{Env, arg};

/// What `EPERM` reads as.
const REFUSED: &str = "Operation not permitted (os error 1)";

/// Where the pack's process runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    /// xcsh's own namespace sandbox, no `bwrap` on `PATH`.
    Namespaces,
    /// `namespaces = false`: the Landlock sandbox alone.
    LandlockOnly,
    /// The Landlock sandbox alone, where no user namespace can be made.
    Unavailable,
}

const ENGINES: [Engine; 3] = [
    Engine::Namespaces,
    Engine::LandlockOnly,
    Engine::Unavailable,
];

/// `xcsh ARGS` running its packs on `engine`, with `grants` for the
/// hostile pack in the user's config.
fn xcsh(env: &Env, engine: Engine, grants: &[&str], command: Command) -> Command {
    if !grants.is_empty() {
        crate::support::write(
            &env.user_config_dir().join("config.toml"),
            &format!(
                "[isolation.packs.{:?}]\ncapabilities = {grants:?}\n",
                arg(&hostile())
            ),
        );
    }
    match engine {
        Engine::Namespaces => command,
        Engine::LandlockOnly => landlock_only(command),
        Engine::Unavailable => without_user_namespaces(&command),
    }
}

/// `xcsh run --isolate` over batch-rename and the hostile pack, `calls`
/// between a preview and its apply; what the hostile pack's calls got.
fn attack(env: &Env, engine: Engine, grants: &[&str], calls: &[String]) -> Vec<String> {
    let command = xcsh(env, engine, grants, isolated(env));
    let output = run_between(env, command, calls);
    // Where namespaces are unavailable, the agent found out and said so.
    assert_eq!(
        output.stderr.contains(&warning()),
        engine == Engine::Unavailable,
        "{engine:?}: {output:?}"
    );
    texts(&output)[1..=calls.len()].to_vec()
}

/// The status `xcsh tools` gives the hostile pack.
fn status(engine: Engine, grants: &[&str]) -> String {
    let env = Env::new();
    let command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    let output = env.run_command(xcsh(&env, engine, grants, command), "");
    output
        .stdout
        .lines()
        .find(|line| line.trim_start().starts_with("syscall"))
        .unwrap_or_else(|| panic!("{output:?}"))
        .to_owned()
}

#[test]
fn the_status_says_the_filter_is_in_force() {
    let line = status(Engine::Namespaces, &[]);
    assert!(
        line.contains(", isolated, sandboxed (namespaces, Landlock ABI ")
            && line
                .ends_with(", seccomp), may write the working directory, no network, no processes"),
        "{line}"
    );
    let line = status(Engine::LandlockOnly, &[]);
    assert!(
        line.contains(
            ", isolated, sandboxed (Landlock only: the config sets namespaces = false; Landlock ABI "
        ) && line
            .ends_with(", seccomp), may write the working directory, no network, no processes"),
        "{line}"
    );
    let line = status(Engine::Unavailable, &[]);
    assert!(
        line.contains(&format!(
            ", isolated, sandboxed (Landlock only: {CANNOT}; Landlock ABI "
        )) && line
            .ends_with(", seccomp), may write the working directory, no network, no processes"),
        "{line}"
    );
    // Granted everything, Landlock is left out; the filter is not.
    let line = status(
        Engine::LandlockOnly,
        &["network", "write-anywhere", "processes"],
    );
    assert!(
        line.ends_with(", isolated, unconfined: granted network and write-anywhere, seccomp"),
        "{line}"
    );
}

#[test]
fn starting_a_process_is_refused_unless_granted() {
    for engine in ENGINES {
        let env = Env::new();
        let calls = [
            call("start_process", json!({})),
            call("fork_and_allocate", json!({"count": 4, "mib": 16})),
        ];
        assert_eq!(
            attack(&env, engine, &[], &calls),
            [
                format!("start /bin/sh: {REFUSED}"),
                format!("fork: {REFUSED}"),
            ],
            "{engine:?}"
        );
        let env = Env::new();
        assert_eq!(
            attack(&env, engine, &["processes"], &calls),
            [
                "/bin/sh ended: exit status: 0",
                "4 of 4 processes allocated 16 MiB each",
            ],
            "{engine:?}"
        );
    }
}

#[test]
fn threads_still_start() {
    for engine in ENGINES {
        let env = Env::new();
        assert_eq!(
            attack(&env, engine, &[], &[call("start_thread", json!({}))]),
            ["the thread answered 42"],
            "{engine:?}"
        );
    }
}

#[test]
fn tracing_key_rings_namespaces_mounts_and_io_uring_are_refused_whatever_is_granted() {
    let calls = [
        ("ptrace_traceme", "ptrace(PTRACE_TRACEME)"),
        ("ptrace_attach_parent", "ptrace(PTRACE_ATTACH)"),
        ("keyctl", "keyctl"),
        ("add_key", "add_key"),
        ("unshare_user", "unshare(CLONE_NEWUSER)"),
        ("clone_user", "clone(CLONE_NEWUSER)"),
        ("mount", "mount"),
        ("io_uring_setup", "io_uring_setup"),
    ];
    let script: Vec<String> = calls
        .iter()
        .map(|(name, _)| call("syscall", json!({"call": name})))
        .collect();
    let expected: Vec<String> = calls
        .iter()
        .map(|(_, what)| format!("{what}: {REFUSED}"))
        .collect();
    for engine in ENGINES {
        for grants in [&[][..], &["network", "write-anywhere", "processes"]] {
            let env = Env::new();
            assert_eq!(
                attack(&env, engine, grants, &script),
                expected,
                "{engine:?} {grants:?}"
            );
        }
    }
}

/// Typing into a terminal: Landlock alone refuses device ioctls on what a
/// pack opens (ABI 5 and later), but a pack granted everything runs without
/// Landlock; the filter refuses `TIOCSTI` all the same.
#[test]
fn typing_into_a_terminal_is_refused_even_granted_everything() {
    for engine in ENGINES {
        let env = Env::new();
        assert_eq!(
            attack(
                &env,
                engine,
                &["network", "write-anywhere", "processes"],
                &[call("syscall", json!({"call": "tiocsti"}))],
            ),
            [format!("ioctl(TIOCSTI): {REFUSED}")],
            "{engine:?}"
        );
    }
}

/// Nothing arrives on `socket` within a short wait.
fn nothing_arrives(socket: &UdpSocket) {
    socket
        .set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut buffer = [0u8; 64];
    let error = socket.recv(&mut buffer).unwrap_err();
    assert!(
        matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{error}"
    );
}

#[test]
fn udp_over_ipv4_and_ipv6_reaches_nothing() {
    for engine in ENGINES {
        let v4 = UdpSocket::bind("127.0.0.1:0").unwrap();
        let v6 = UdpSocket::bind("[::1]:0").unwrap();
        let env = Env::new();
        let calls = [&v4, &v6].map(|socket| {
            call(
                "udp_send",
                json!({"address": socket.local_addr().unwrap().to_string()}),
            )
        });
        assert_eq!(
            attack(&env, engine, &[], &calls),
            [
                format!("udp socket: {REFUSED}"),
                format!("udp socket: {REFUSED}")
            ],
            "{engine:?}"
        );
        nothing_arrives(&v4);
        nothing_arrives(&v6);
    }
}

/// Nothing connected to `listener`.
fn nothing_connected(listener: &UnixListener) {
    listener.set_nonblocking(true).unwrap();
    let error = listener.accept().map(|_| ()).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::WouldBlock, "{error}");
}

/// An abstract socket's name of this test run's own.
fn abstract_name() -> String {
    let dir = TempDir::new().unwrap();
    format!(
        "xcsh-test-{}",
        dir.path().file_name().unwrap().to_string_lossy()
    )
}

fn listen_abstract(name: &str) -> UnixListener {
    use std::os::linux::net::SocketAddrExt as _;
    let address = std::os::unix::net::SocketAddr::from_abstract_name(name).unwrap();
    UnixListener::bind_addr(&address).unwrap()
}

#[test]
fn unix_sockets_with_a_path_or_abstract_are_refused() {
    for engine in ENGINES {
        let env = Env::new();
        // Outside the working and temporary directories (so visible,
        // read-only, in the namespaces too), and inside the working one.
        let elsewhere = outside();
        let out = elsewhere.path().join("outside.sock");
        let inside = env.work().join("inside.sock");
        let name = abstract_name();
        let listeners = [
            UnixListener::bind(&out).unwrap(),
            UnixListener::bind(&inside).unwrap(),
            listen_abstract(&name),
        ];
        let addresses = [
            arg(&out).to_owned(),
            arg(&inside).to_owned(),
            format!("@{name}"),
        ];
        let calls = addresses
            .each_ref()
            .map(|address| call("unix_connect", json!({"address": address})));
        assert_eq!(
            attack(&env, engine, &[], &calls),
            addresses.map(|address| format!("connect {address}: {REFUSED}")),
            "{engine:?}"
        );
        for listener in &listeners {
            nothing_connected(listener);
        }
    }
}

#[test]
fn network_lets_the_pack_reach_a_unix_socket() {
    for engine in ENGINES {
        let env = Env::new();
        let path = env.work().join("inside.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let texts = attack(
            &env,
            engine,
            &["network"],
            &[call("unix_connect", json!({"address": arg(&path)}))],
        );
        assert_eq!(
            texts,
            [format!("connected to {}", path.display())],
            "{engine:?}"
        );
        listener.set_nonblocking(true).unwrap();
        let (mut stream, _) = listener.accept().unwrap();
        stream.set_nonblocking(false).unwrap();
        let mut line = String::new();
        stream.read_to_string(&mut line).unwrap();
        assert_eq!(line, "hello from hostile\n");
    }
}
