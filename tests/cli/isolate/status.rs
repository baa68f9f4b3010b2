//! What `xcsh tools` says of an isolated pack's sandbox, what
//! `require_sandbox` demands, and the environment a pack gets.

use serde_json::json;

use super::hostile::{call, hostile, isolated, landlock_only, run_between, texts};
use super::namespaces::bubblewrap;
use crate::support::{Env, arg, canonical};

/// The `kill_parent` line of `xcsh tools` over the hostile pack, and the
/// whole output.
fn tools_line(env: &Env, without_bubblewrap: bool) -> (String, String) {
    let mut command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    if without_bubblewrap {
        command = landlock_only(command);
    }
    let output = env.run_command(command, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let line = output
        .stdout
        .lines()
        .find(|line| line.trim_start().starts_with("kill_parent"))
        .map(str::to_owned)
        .unwrap_or_default();
    (line, output.stdout)
}

#[test]
fn tools_says_how_a_pack_is_confined_and_what_it_may_do() {
    bubblewrap();
    let env = Env::new();
    let (line, _) = tools_line(&env, false);
    assert!(
        line.ends_with(
            ", isolated, sandboxed (bubblewrap, Landlock ABI 7, seccomp), may write the working directory, no network, no processes"
        ),
        "{line}"
    );
    let (line, _) = tools_line(&env, true);
    assert!(
        line.ends_with(
            ", isolated, sandboxed (Landlock only: bubblewrap is not installed; Landlock ABI 7, seccomp), may write the working directory, no network, no processes"
        ),
        "{line}"
    );
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        &format!(
            "[isolation.packs.{:?}]\ncapabilities = [\"network\"]\n",
            arg(&hostile())
        ),
    );
    let (line, _) = tools_line(&env, false);
    assert!(
        line.ends_with(", may write the working directory, network, no processes"),
        "{line}"
    );
}

#[test]
fn namespaces_can_be_turned_off_and_the_status_says_so() {
    bubblewrap();
    let env = Env::new();
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[isolation]\nnamespaces = false\n",
    );
    let (line, _) = tools_line(&env, false);
    assert!(
        line.contains(
            ", isolated, sandboxed (Landlock only: the config sets namespaces = false; Landlock ABI 7, seccomp), "
        ),
        "{line}"
    );
}

/// A `bwrap` on `PATH` that fails as bubblewrap does where it may not
/// create namespaces.
fn broken_bubblewrap(env: &Env) -> String {
    let dir = env.home.path().join("broken-bin");
    let script = crate::support::write(
        &dir.join("bwrap"),
        "#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
    );
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap())
}

#[test]
fn a_bubblewrap_that_cannot_set_up_namespaces_leaves_landlock_and_says_why() {
    let env = Env::new();
    let path = broken_bubblewrap(&env);
    let mut command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    command.env("PATH", &path);
    let output = env.run_command(command, "");
    assert!(
        output.stdout.contains(
            ", isolated, sandboxed (Landlock only: bubblewrap cannot create namespaces here (bwrap: setting up uid map: Permission denied); Landlock ABI 7, seccomp), "
        ),
        "{output:?}"
    );
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[isolation]\nrequire_sandbox = \"full\"\n",
    );
    let mut command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    command.env("PATH", &path);
    let output = env.run_command(command, "");
    assert!(
        output.stdout.contains(
            "refusing to run it without namespaces (bubblewrap cannot create namespaces here (bwrap: setting up uid map: Permission denied)): the config sets require_sandbox = \"full\""
        ),
        "{output:?}"
    );
}

#[test]
fn require_sandbox_full_refuses_a_pack_without_namespaces() {
    bubblewrap();
    let env = Env::new();
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[isolation]\nrequire_sandbox = \"full\"\n",
    );
    let (line, _) = tools_line(&env, false);
    assert!(line.contains("sandboxed (bubblewrap, "), "{line}");
    let (line, out) = tools_line(&env, true);
    assert!(line.is_empty(), "{out}");
    assert!(
        out.contains(&format!(
            "Failed to load tool pack {}: refusing to run it without namespaces (bubblewrap is not installed): the config sets require_sandbox = \"full\"",
            canonical(&hostile()).display()
        )),
        "{out}"
    );
}

#[test]
fn an_isolated_pack_gets_only_the_basic_environment_and_what_is_granted() {
    bubblewrap();
    let env = Env::new();
    env.grant_env(&canonical(&hostile()), &["WEATHER_API_KEY"]);
    let mut command = isolated(&env);
    command
        .env("OPENAI_API_KEY", "sk-not-for-packs")
        .env("WEATHER_API_KEY", "granted");
    let output = run_between(
        &env,
        command,
        &[
            call("read_env", json!({"text": "OPENAI_API_KEY"})),
            call("read_env", json!({"text": "WEATHER_API_KEY"})),
            call("read_env", json!({"text": "HOME"})),
        ],
    );
    assert_eq!(
        texts(&output)[1..4],
        [
            "unset".to_owned(),
            "granted".to_owned(),
            env.home.path().display().to_string()
        ]
    );
}
