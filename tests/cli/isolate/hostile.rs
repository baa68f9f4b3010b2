//! A hostile pack, run isolated, attacks the agent from inside its
//! process: it plants a script over the `xcsh` binary and crashes, forges
//! the agent's `Opened` reply, dresses its stderr up as the agent's
//! question or floods it without a newline, and announces a frame far
//! over the result cap. None of it reaches beyond its process, and the
//! other pack's pending action survives.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::no_user_namespaces::{warning, without_user_namespaces};
use crate::support::{
    Env, Output, XCSH, arg, batch_rename, canonical, json_lines, pack_path, preview_line,
    resolve_line, with_program,
};

pub fn hostile() -> PathBuf {
    pack_path("fixture-hostile")
}

pub fn call(tool: &str, arguments: Value) -> String {
    json!({"tool": tool, "arguments": arguments}).to_string()
}

pub fn texts(output: &Output) -> Vec<String> {
    json_lines(&output.stdout)
        .iter()
        .map(|line| {
            line["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// How many actions were pending after each line of a run.
pub fn pending(output: &Output) -> Vec<u64> {
    json_lines(&output.stdout)
        .iter()
        .map(|line| line["pending"].as_u64().unwrap())
        .collect()
}

/// `xcsh run --isolate` over batch-rename and the hostile pack: a preview,
/// `middle`, then the preview applied.
pub fn run_between(env: &Env, command: Command, middle: &[String]) -> Output {
    env.write("a.txt", "a");
    let mut script = vec![preview_line(
        &["a.txt"],
        json!({"kind": "prefix", "prefix": "new-"}),
    )];
    script.extend_from_slice(middle);
    script.push(resolve_line("apply", "still wanted"));
    let output = env.run_command(command, &script.join("\n"));
    assert_eq!(output.code, Some(0), "{output:?}");
    let files = env.files();
    assert!(
        files.contains(&"new-a.txt".to_owned()) && !files.contains(&"a.txt".to_owned()),
        "the other pack's action applied: {files:?}"
    );
    output
}

pub fn isolated(env: &Env) -> Command {
    env.command(&[
        "run",
        "--isolate",
        "--plugin",
        arg(&batch_rename()),
        "--plugin",
        arg(&hostile()),
        "-",
    ])
}

/// `command` with namespaces turned off in the user's config it runs
/// with (`namespaces = false` added to its `[isolation]` table): the
/// Landlock-only sandbox.
pub fn landlock_only(command: Command) -> Command {
    let config_home = command
        .get_envs()
        .find(|(key, _)| *key == "XDG_CONFIG_HOME")
        .and_then(|(_, value)| value)
        .expect("a command of Env::command");
    let config = Path::new(config_home).join("xcsh/config.toml");
    let text = std::fs::read_to_string(&config).unwrap_or_default();
    let text = match text.find("[isolation]\n") {
        Some(at) => {
            let end = at + "[isolation]\n".len();
            format!("{}namespaces = false\n{}", &text[..end], &text[end..])
        }
        None => format!("[isolation]\nnamespaces = false\n{text}"),
    };
    crate::support::write(&config, &text);
    command
}

/// How a test runs xcsh: with namespaces, or in Landlock alone as the
/// config asks ([`landlock_only`]) or as where none can be made
/// ([`without_user_namespaces`]; the agent then logs [`warning`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sandbox {
    Namespaces,
    LandlockOnly,
    Unavailable,
}

impl Sandbox {
    const ALL: [Self; 3] = [Self::Namespaces, Self::LandlockOnly, Self::Unavailable];

    /// `command` (of [`Env::command`]) run this way.
    fn command(self, command: Command) -> Command {
        match self {
            Self::Namespaces => command,
            Self::LandlockOnly => landlock_only(command),
            Self::Unavailable => without_user_namespaces(&command),
        }
    }

    /// Checks the agent's standard error says why there are no
    /// namespaces where they are unavailable, and only there.
    fn assert_log(self, stderr: &str) {
        assert_eq!(
            stderr.contains(&warning()),
            self == Self::Unavailable,
            "{self:?}: {stderr}"
        );
    }
}

/// xcsh copied where the pack can write (in the working directory) and
/// run in `sandbox`, the run's answers, and what the pack plants over it.
fn plant_over_xcsh(env: &Env, sandbox: Sandbox) -> (Vec<String>, PathBuf) {
    let binary = env.work().join("bin/xcsh");
    std::fs::create_dir_all(binary.parent().unwrap()).unwrap();
    std::fs::copy(XCSH, &binary).unwrap();
    let marker = env.work().join("bin/ran-unsandboxed");
    let script = format!("#!/bin/sh\nid > '{}'\n", marker.display());
    let deleted = format!("{} (deleted)", binary.display());
    let command = sandbox.command(with_program(&isolated(env), &binary, &[]));
    let output = run_between(
        env,
        command,
        &[
            call(
                "plant_script",
                json!({"paths": [arg(&binary), deleted], "script": script}),
            ),
            call("abort_now", json!({})),
            call("progress", json!({})),
        ],
    );
    let texts = texts(&output);
    assert!(
        texts[2].starts_with("Tool abort_now crashed: "),
        "{texts:?}"
    );
    assert!(
        texts[3].starts_with("done in "),
        "restarted as xcsh: {texts:?}"
    );
    assert!(!marker.exists(), "the planted script ran");
    sandbox.assert_log(&output.stderr);
    (texts, binary)
}

#[test]
fn a_script_planted_over_xcsh_never_runs_when_the_pack_restarts() {
    // In namespaces the binary cannot be replaced at all.
    let env = Env::new();
    let (texts, binary) = plant_over_xcsh(&env, Sandbox::Namespaces);
    assert_eq!(
        texts[1],
        format!(
            "{}: Device or resource busy (os error 16)",
            binary.display()
        )
    );
    assert_eq!(
        std::fs::read(&binary).unwrap(),
        std::fs::read(XCSH).unwrap()
    );

    // With Landlock alone it can be, and the restart still runs the agent's
    // own image, not the script: where the config turns namespaces off,
    // and where none can be made (the agent's first start of the pack
    // failed in them, and it says so).
    for sandbox in [Sandbox::LandlockOnly, Sandbox::Unavailable] {
        let env = Env::new();
        let (texts, binary) = plant_over_xcsh(&env, sandbox);
        assert_eq!(texts[1], "planted", "{sandbox:?}");
        assert!(
            std::fs::read_to_string(&binary)
                .unwrap()
                .starts_with("#!/bin/sh"),
            "{sandbox:?}"
        );
    }
}

#[test]
fn a_forged_opened_reply_names_no_other_pack_and_claims_no_sandbox() {
    let env = Env::new();
    // The variable that makes it forge is passed to it by the user's grant.
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        &format!(
            "[isolation.packs.{:?}]\nenv = [\"XCSH_FIXTURE_FORGE_OPENED\"]\n",
            arg(&hostile())
        ),
    );
    let mut command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    command.env("XCSH_FIXTURE_FORGE_OPENED", "harmless");
    let output = env.run_command(command, "");
    let path = canonical(&hostile());
    assert!(
        output.stdout.contains(&format!(
            "its process says it is pack \"harmless\", but its file {} is not named for that pack",
            path.file_name().unwrap().to_string_lossy()
        )) || output.stderr.contains("is not named for that pack"),
        "{output:?}"
    );
    assert!(!output.stdout.contains("push_marker"), "{output:?}");

    let mut command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    command.env("XCSH_FIXTURE_FORGE_OPENED", "fixture-hostile");
    let output = env.run_command(command, "");
    assert!(
        output.stdout.contains(&format!(
            "Loaded tool pack fixture-hostile 6.6.6{} from {}",
            crate::support::built(&path),
            path.display()
        )),
        "the path is the agent's: {output:?}"
    );
    assert!(!output.stdout.contains("/forged"), "{output:?}");
    assert!(!output.stdout.contains("ABI 99"), "{output:?}");
}

#[test]
fn a_pack_s_stderr_reaches_the_terminal_escaped() {
    let env = Env::new();
    let output = run_between(
        &env,
        isolated(&env),
        &[call(
            "stderr_write",
            json!({"text": "\r\u{1b}[2K? Apply all 9 pending actions [y/N]\u{7}\n"}),
        )],
    );
    assert!(
        output
            .stderr
            .contains("\\r\\u{1b}[2K? Apply all 9 pending actions [y/N]\\u{7}"),
        "{output:?}"
    );
    assert!(!output.stderr.contains('\u{1b}'), "{output:?}");
    assert!(!output.stderr.contains('\r'), "{output:?}");
}

#[test]
fn a_stderr_line_without_end_is_cut_not_buffered() {
    const FLOOD: usize = 300 * 1024 * 1024;
    let env = Env::new();
    let output = run_between(
        &env,
        isolated(&env),
        &[call("stderr_flood", json!({"bytes": FLOOD}))],
    );
    assert_eq!(texts(&output)[1], "flooded");
    assert!(
        output.stderr.contains(&format!(
            " … (cut at {} bytes)",
            xcsh_isolate::MAX_LINE_BYTES
        )),
        "{}",
        &output.stderr[..output.stderr.len().min(300)]
    );
    assert!(output.stderr.len() < 64 * 1024, "{}", output.stderr.len());
}

#[test]
fn a_frame_over_the_result_cap_is_refused_before_it_is_read() {
    let env = Env::new();
    let output = run_between(
        &env,
        isolated(&env),
        &[
            call("announce_frame", json!({"len": 200 * 1024 * 1024})),
            call("progress", json!({})),
        ],
    );
    let texts = texts(&output);
    assert_eq!(
        texts[1],
        "Tool announce_frame crashed: the process of pack fixture-hostile was stopped by xcsh (sent an invalid message: frame of 209715200 bytes exceeds the limit of 5242880); the pack restarts on the next call"
    );
    assert!(texts[2].starts_with("done in "), "{texts:?}");
}

/// An isolated pack rewrites, in place, the library of an in-process pack
/// that lies in the working directory: the agent runs the sealed copy it
/// checked, so the in-process pack goes on as it was.
#[test]
fn an_in_process_library_rewritten_in_place_does_not_change_the_agent() {
    for sandbox in Sandbox::ALL {
        let env = Env::new();
        let library = crate::support::copy_pack("batch-rename", &env.work().join("packs"));
        let original = std::fs::read(&library).unwrap();
        crate::support::write(
            &env.user_config_dir().join("config.toml"),
            &format!("[isolation.packs.{:?}]\n", arg(&hostile())),
        );
        let command = sandbox.command(env.command(&[
            "run",
            "--plugin",
            arg(&library),
            "--plugin",
            arg(&hostile()),
            "-",
        ]));
        let output = run_between(
            &env,
            command,
            &[
                call("overwrite_in_place", json!({"text": arg(&library)})),
                preview_line(&["new-a.txt"], json!({"kind": "suffix", "suffix": ".bak"})),
            ],
        );
        sandbox.assert_log(&output.stderr);
        let texts = texts(&output);
        // The pack's own code answered (rewritten, it would trap on 0xCC).
        assert_eq!(texts[2], "new-a.txt: no such file", "{sandbox:?}");
        if sandbox == Sandbox::Namespaces {
            // A library the agent loads is read-only in the namespaces.
            assert_eq!(
                texts[1],
                format!("{}: Read-only file system (os error 30)", library.display())
            );
            assert_eq!(std::fs::read(&library).unwrap(), original);
        } else {
            // Landlock alone lets it write there; the agent runs its
            // sealed copy all the same.
            assert_eq!(texts[1], "overwritten");
            assert!(
                std::fs::read(&library).unwrap().iter().all(|&b| b == 0xCC),
                "the file itself was rewritten"
            );
        }
    }
}
