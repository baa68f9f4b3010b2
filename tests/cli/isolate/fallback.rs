//! Every attack of a hostile isolated pack on the agent itself, in every
//! mode a user can end up in: with namespaces (the default), in the
//! fallback without them forced by `[isolation] namespaces = false`, and in
//! the same fallback reached as on a machine where user namespaces are
//! unavailable (xcsh run where none can be created, see
//! `no_user_namespaces`: the first pack's start fails in xcsh's namespace
//! engine, the agent says so on standard error and starts it again in
//! Landlock alone; the test checks it did). The pack signals its parent,
//! lowers its resource limits and its scheduling, reads `/proc` for the
//! agent's secret, hangs up the terminal it would share with the REPL,
//! changes the metadata of a file outside its sandbox, uses descriptors the
//! agent inherited, and plants hooks in a nested repository. Each time the
//! agent answers every call, an in-process pack's pending rename and the
//! hostile pack's own pending action still apply, and nothing outside
//! changed, with the same answers in both ways to the fallback; the nested
//! repository's hooks are kept with namespaces only (docs/isolation.md's
//! table says so).

use std::io::ErrorKind;
use std::net::{TcpListener, TcpStream};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use command_fds::{CommandFdExt as _, FdMapping};
use expectrl::{Eof, Expect as _, Regex, Session};
use serde_json::json;

use super::file_state::{FileState, set_xattr};
use super::hostile::{call, hostile, texts};
use super::no_user_namespaces::{CANNOT, warning, without_user_namespaces};
use super::reach::{READ_ONLY, metadata_attacks};
use super::sandbox::outside;
use crate::support::{Env, Output, arg, batch_rename, json_lines, preview_line, resolve_line};

/// How the sandbox runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// In namespaces of its own: the default.
    Namespaces,
    /// Without them: `[isolation] namespaces = false`.
    Fallback,
    /// Without them because none can be created: xcsh run where user
    /// namespaces are unavailable, with the default config.
    Unavailable,
}

pub(super) const MODES: [Mode; 3] = [Mode::Namespaces, Mode::Fallback, Mode::Unavailable];

/// What the seccomp filter answers.
const REFUSED: &str = "Operation not permitted (os error 1)";

/// A variable of the agent's environment no pack may see.
const SECRET: &str = "sk-fallback-test-not-for-packs";

impl Mode {
    /// Writes the user's config: the hostile pack isolated with `grants`
    /// (TOML lines of its entry), every other pack in process, and for
    /// the fallback, no namespaces (where they are unavailable, the
    /// machine turns them off, not the config).
    pub(super) fn configure(self, env: &Env, grants: &str) {
        let namespaces = match self {
            Self::Namespaces | Self::Unavailable => "",
            Self::Fallback => "[isolation]\nnamespaces = false\n",
        };
        crate::support::write(
            &env.user_config_dir().join("config.toml"),
            &format!(
                "{namespaces}[isolation.packs.{:?}]\n{grants}",
                arg(&hostile())
            ),
        );
    }

    /// `command` run in this mode: where user namespaces are unavailable,
    /// through [`without_user_namespaces`] (the same process, descriptors
    /// and terminal).
    fn command(self, command: Command) -> Command {
        match self {
            Self::Namespaces | Self::Fallback => command,
            Self::Unavailable => without_user_namespaces(&command),
        }
    }

    /// Checks that the agent's `log` (its standard error, or what the REPL
    /// showed) says the namespace sandbox cannot be set up where user
    /// namespaces are unavailable, and only there: a run in this mode
    /// really had its packs in Landlock alone, for the reason a user there
    /// gets.
    fn assert_log(self, log: &str) {
        match self {
            Self::Unavailable => assert!(log.contains(&warning()), "{self:?}: {log}"),
            Self::Namespaces | Self::Fallback => {
                assert!(!log.contains(CANNOT), "{self:?}: {log}");
            }
        }
    }
}

/// `xcsh run` over batch-rename (in process) and the hostile pack
/// (isolated by the config), in `mode`.
pub(super) fn run_command(env: &Env, mode: Mode) -> Command {
    mode.command(env.command(&[
        "run",
        "--plugin",
        arg(&batch_rename()),
        "--plugin",
        arg(&hostile()),
        "-",
    ]))
}

/// Runs `command` (of `mode`) over a session: the in-process pack's
/// preview, the hostile pack's own push, `attacks`, a call showing the
/// pack still answers with both actions pending, then both applied.
/// Checks all of that and the mode's log, and answers what each attack
/// got.
pub(super) fn attack(env: &Env, mode: Mode, command: Command, attacks: Vec<String>) -> Vec<String> {
    env.write("a.txt", "a");
    let count = attacks.len();
    let mut script = vec![
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "new-"})),
        call("push_marker", json!({"tag": "before"})),
    ];
    script.extend(attacks);
    script.push(call("progress", json!({})));
    script.push(resolve_line("apply", "the pack's own"));
    script.push(resolve_line("apply", "still wanted"));
    let output = env.run_command(command, &script.join("\n"));
    assert_alive(&output, count);
    mode.assert_log(&output.stderr);
    let files = env.files();
    assert!(
        files.contains(&"new-a.txt".to_owned()) && !files.contains(&"a.txt".to_owned()),
        "the rename applied: {files:?}"
    );
    texts(&output)[2..2 + count].to_vec()
}

/// The agent answered every call of `attack`'s session with `count`
/// attacks, and both actions were pending after them and applied.
fn assert_alive(output: &Output, count: usize) {
    assert_eq!(output.code, Some(0), "{output:?}");
    let texts = texts(output);
    let after = 2 + count;
    assert_eq!(texts.len(), after + 3, "{output:?}");
    assert_eq!(texts[1], "pushed before");
    assert!(texts[after].starts_with("done in "), "{texts:?}");
    assert_eq!(
        json_lines(&output.stdout)[after]["pending"],
        2,
        "{output:?}"
    );
    assert_eq!(texts[after + 1], "applied before", "{texts:?}");
}

#[test]
fn signalling_its_parent_never_reaches_the_agent() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let attacks = ["KILL", "STOP", "KILL"]
            .map(|signal| call("signal_parent", json!({"signal": signal})))
            .to_vec();
        let answers = attack(&env, mode, run_command(&env, mode), attacks);
        for (answer, signal) in answers.iter().zip(["KILL", "STOP", "KILL"]) {
            let refused = format!("SIG{signal} to its parent: {REFUSED}");
            // In namespaces its parent is its sandbox's first process, or
            // it has none there.
            assert!(
                *answer == refused
                    || (mode == Mode::Namespaces && answer == "no parent in its sandbox"),
                "{mode:?}: {answer}"
            );
        }
    }
}

#[test]
fn lowering_its_parent_s_limits_never_reaches_the_agent() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let resources = ["AS", "NOFILE", "CPU"];
        let attacks = resources
            .map(|resource| call("limit_parent", json!({"resource": resource})))
            .to_vec();
        let answers = attack(&env, mode, run_command(&env, mode), attacks);
        for (answer, resource) in answers.iter().zip(resources) {
            let refused = format!("RLIMIT_{resource} of its parent: {REFUSED}");
            assert!(
                *answer == refused
                    || (mode == Mode::Namespaces && answer == "no parent in its sandbox"),
                "{mode:?}: {answer}"
            );
        }
    }
}

/// The agent's scheduling: nice 19, the idle I/O class, the idle policy
/// for its parent (the agent, where no PID namespace hides it; else the
/// sandbox's first process). Any process of the same user may set them,
/// and Landlock does not cover them: the seccomp filter refuses them but
/// for the calling thread.
#[test]
fn lowering_its_parent_s_scheduling_never_reaches_the_agent() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let answers = attack(
            &env,
            mode,
            run_command(&env, mode),
            vec![call("nice_parent", json!({}))],
        );
        assert_eq!(
            answers,
            [format!(
                "nice 19 for its parent: {REFUSED}; idle I/O: {REFUSED}; idle policy: {REFUSED}"
            )],
            "{mode:?}"
        );
    }
}

#[test]
fn the_agent_s_environment_is_not_read_through_proc() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let mut command = run_command(&env, mode);
        command.env("XCSH_TEST_SECRET", SECRET);
        let answers = attack(
            &env,
            mode,
            command,
            vec![call("find_secret", json!({"text": SECRET}))],
        );
        assert_eq!(
            answers,
            ["its parent's environ: Permission denied (os error 13); the secret: not found"],
            "{mode:?}"
        );
    }
}

#[test]
fn metadata_of_a_file_outside_cannot_change() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let elsewhere = outside();
        let target = crate::support::write(&elsewhere.path().join("outside.txt"), "outside\n");
        set_xattr(&target, "user.kept", "yes");
        let before = FileState::of(&target);
        let attacks = metadata_attacks(&target, 4242);
        let count = attacks.len();
        let answers = attack(&env, mode, run_command(&env, mode), attacks);
        let why = match mode {
            Mode::Namespaces => READ_ONLY,
            Mode::Fallback | Mode::Unavailable => REFUSED,
        };
        assert_eq!(
            answers,
            vec![format!("{}: {why}", target.display()); count],
            "{mode:?}"
        );
        assert_eq!(FileState::of(&target), before, "{mode:?}");
    }
}

#[test]
fn nothing_outside_is_written_and_no_device_is_made_or_reached() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let elsewhere = outside();
        let target = crate::support::write(&elsewhere.path().join("outside.txt"), "outside\n");
        let before = FileState::of(&target);
        let node = env.work().join("mem");
        let answers = attack(
            &env,
            mode,
            run_command(&env, mode),
            vec![
                call("overwrite_in_place", json!({"text": arg(&target)})),
                call(
                    "plant_script",
                    json!({"paths": [arg(&target)], "script": "forged"}),
                ),
                call("mknod", json!({"path": arg(&node), "major": 1, "minor": 1})),
                call("write_kmsg", json!({"text": "<0>xcsh: forged by a pack\n"})),
            ],
        );
        const DENIED: &str = "Permission denied (os error 13)";
        let (written, device, kmsg) = match mode {
            Mode::Namespaces => (READ_ONLY, REFUSED, "No such file or directory (os error 2)"),
            Mode::Fallback | Mode::Unavailable => (DENIED, DENIED, DENIED),
        };
        let target = target.display();
        assert_eq!(
            answers,
            [
                format!("{target}: {written}"),
                format!("{target}: {written}"),
                format!("{}: {device}", node.display()),
                format!("/dev/kmsg: {kmsg}"),
            ],
            "{mode:?}"
        );
        assert_eq!(
            FileState::of(elsewhere.path().join("outside.txt").as_path()),
            before
        );
        assert!(
            node.symlink_metadata().is_err(),
            "{mode:?}: a node was made"
        );
    }
}

#[test]
fn descriptors_the_agent_inherited_are_closed_in_the_pack() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let elsewhere = outside();
        let file_path = crate::support::write(&elsewhere.path().join("inherited.log"), "kept\n");
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&file_path)
            .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let tcp = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (mut accepted, _) = listener.accept().unwrap();
        let (unix, mut unix_peer) = UnixStream::pair().unwrap();
        let fds = [50, 51, 52];
        let held: [OwnedFd; 3] = [file.into(), tcp.into(), unix.into()];
        // Open in `xcsh` without close-on-exec, as a shell's `exec 50>>…`.
        let hand_over = |command: &mut Command| {
            let mappings = held.iter().zip(fds).map(|(fd, child_fd)| FdMapping {
                parent_fd: fd.try_clone().unwrap(),
                child_fd,
            });
            command.fd_mappings(mappings.collect()).unwrap();
        };
        // The mode's way of running xcsh keeps them: a program run the
        // same way has them open.
        let mut probe = Command::new("readlink");
        probe.args(fds.map(|fd| format!("/proc/self/fd/{fd}")));
        let mut probe = mode.command(probe);
        hand_over(&mut probe);
        let probed = probe.output().unwrap();
        let links = String::from_utf8(probed.stdout.clone()).unwrap();
        let links: Vec<&str> = links.lines().collect();
        assert!(
            matches!(links[..], [file, tcp, unix]
                if Path::new(file) == std::fs::canonicalize(&file_path).unwrap()
                    && tcp.starts_with("socket:[")
                    && unix.starts_with("socket:[")),
            "{mode:?}: {links:?} {probed:?}"
        );
        let mut command = run_command(&env, mode);
        hand_over(&mut command);
        drop(held);
        let answers = attack(
            &env,
            mode,
            command,
            vec![call("use_fds", json!({"fds": fds}))],
        );
        assert_eq!(
            answers,
            [
                "fd 50: Bad file descriptor (os error 9); fd 51: Bad file descriptor (os error 9); fd 52: Bad file descriptor (os error 9)"
            ],
            "{mode:?}"
        );
        assert_eq!(std::fs::read_to_string(&file_path).unwrap(), "kept\n");
        assert_eq!(received(&mut accepted), b"", "{mode:?}: sent over TCP");
        assert_eq!(received(&mut unix_peer), b"", "{mode:?}: sent over Unix");
    }
}

/// What a socket has received so far (up to its end, if it ended).
fn received(socket: &mut (impl std::io::Read + AsNonBlocking)) -> Vec<u8> {
    socket.non_blocking();
    let mut all = Vec::new();
    let mut buffer = [0u8; 64];
    loop {
        match socket.read(&mut buffer) {
            Ok(0) => return all,
            Ok(n) => all.extend_from_slice(&buffer[..n]),
            Err(error) if error.kind() == ErrorKind::WouldBlock => return all,
            Err(error) => panic!("{error}"),
        }
    }
}

/// A socket that can be read without waiting.
trait AsNonBlocking {
    fn non_blocking(&self);
}

impl AsNonBlocking for TcpStream {
    fn non_blocking(&self) {
        self.set_nonblocking(true).unwrap();
    }
}

impl AsNonBlocking for UnixStream {
    fn non_blocking(&self) {
        self.set_nonblocking(true).unwrap();
    }
}

#[test]
fn the_repl_s_terminal_cannot_be_hung_up_from_the_pack() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        env.write("draft.md", "text");
        let mut command = env.command(&[
            "repl",
            "--plugin",
            arg(&batch_rename()),
            "--plugin",
            arg(&hostile()),
        ]);
        command.env("TERM", "xterm");
        // The mode's way of running xcsh keeps the terminal: a program run
        // the same way in a pty has it as its controlling terminal.
        let mut probe = Command::new("sh");
        probe.args(["-c", "exec 3</dev/tty && echo opened /dev/tty"]);
        let mut probe = Session::spawn(mode.command(probe)).expect("spawn sh in a pty");
        probe.set_expect_timeout(Some(Duration::from_secs(60)));
        probe
            .expect("opened /dev/tty")
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        probe.expect(Eof).unwrap();
        let mut repl = Session::spawn(mode.command(command)).expect("spawn xcsh repl in a pty");
        repl.set_expect_timeout(Some(Duration::from_secs(60)));
        let started = repl.expect("xcsh> ").unwrap();
        mode.assert_log(&String::from_utf8_lossy(started.before()));
        repl.send_line(
            r#"batch_rename_preview {"files": ["draft.md"], "rule": {"kind": "prefix", "prefix": "new-"}}"#,
        )
        .unwrap();
        repl.expect("xcsh [1 pending]> ").unwrap();
        repl.send_line("terminal {}").unwrap();
        let said = repl
            .expect(Regex("[^\r\n]*vhangup: [^\r\n]*"))
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let said = String::from_utf8_lossy(said.get(0).unwrap()).into_owned();
        assert!(
            said.ends_with(
                "no controlling terminal; no terminal descriptor; /dev/tty: No such device or address (os error 6); vhangup: Operation not permitted (os error 1)"
            ),
            "{mode:?}: {said}"
        );
        repl.expect("xcsh [1 pending]> ").unwrap();
        repl.send_line("apply still wanted").unwrap();
        repl.expect("Renamed 1 file:").unwrap();
        repl.expect("xcsh> ").unwrap();
        repl.send_line("exit").unwrap();
        repl.expect(Eof).unwrap();
        assert_eq!(env.files(), ["new-draft.md"], "{mode:?}");
    }
}

/// A repository nested in the working directory (`sub/`) and a worktree
/// whose `.git` file names a git directory elsewhere in it: the hooks
/// git would run, one in each.
fn nested_repositories(env: &Env) -> [PathBuf; 2] {
    let hook = env.write("sub/.git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    env.write("sub/README", "a submodule");
    env.write("tree/.git", "gitdir: ../gits/tree\n");
    let other = env.write("gits/tree/hooks/post-checkout", "#!/bin/sh\nexit 0\n");
    [hook, other]
}

#[test]
fn a_nested_repository_s_hooks_are_read_only_with_namespaces() {
    for mode in MODES {
        let env = Env::new();
        mode.configure(&env, "");
        let hooks = nested_repositories(&env);
        let before: Vec<FileState> = hooks.iter().map(|hook| FileState::of(hook)).collect();
        let attacks = hooks
            .iter()
            .flat_map(|hook| {
                [
                    call("overwrite_in_place", json!({"text": arg(hook)})),
                    call(
                        "plant_script",
                        json!({"paths": [arg(hook)], "script": "#!/bin/sh\nid\n"}),
                    ),
                ]
            })
            .collect();
        let answers = attack(&env, mode, run_command(&env, mode), attacks);
        match mode {
            Mode::Namespaces => {
                let refused: Vec<String> = hooks
                    .iter()
                    .flat_map(|hook| vec![format!("{}: {READ_ONLY}", hook.display()); 2])
                    .collect();
                assert_eq!(answers, refused);
                let after: Vec<FileState> = hooks.iter().map(|hook| FileState::of(hook)).collect();
                assert_eq!(after, before);
            }
            // Without namespaces no `.git` is kept, the working
            // directory's own included (docs/isolation.md: "not at all").
            Mode::Fallback | Mode::Unavailable => {
                assert_eq!(
                    answers,
                    ["overwritten", "planted", "overwritten", "planted"]
                );
            }
        }
    }
}
