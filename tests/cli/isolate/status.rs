//! What `xcsh tools` says of an isolated pack's sandbox, what
//! `require_sandbox` demands, and the environment a pack gets.

use serde_json::json;

use super::hostile::{call, hostile, isolated, landlock_only, run_between, texts};
use super::no_user_namespaces::{CANNOT, without_user_namespaces};
use crate::support::{Env, arg, canonical};

/// The `kill_parent` line of `xcsh tools` over the hostile pack, and the
/// whole output.
fn tools_line(env: &Env, without_namespaces: bool) -> (String, String) {
    let mut command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    if without_namespaces {
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
    let env = Env::new();
    let (line, _) = tools_line(&env, false);
    assert!(
        line.ends_with(
            ", isolated, sandboxed (namespaces, Landlock ABI 7, seccomp), may write the working directory, no network, no processes"
        ),
        "{line}"
    );
    let (line, _) = tools_line(&env, true);
    assert!(
        line.ends_with(
            ", isolated, sandboxed (Landlock only: the config sets namespaces = false; Landlock ABI 7, seccomp), may write the working directory, no network, no processes"
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

#[test]
fn where_user_namespaces_are_unavailable_landlock_is_left_and_the_status_says_why() {
    let env = Env::new();
    let command = env.command(&["tools", "--isolate", "--plugin", arg(&hostile())]);
    let output = env.run_command(without_user_namespaces(&command), "");
    assert!(
        output.stdout.contains(&format!(
            ", isolated, sandboxed (Landlock only: {CANNOT}; Landlock ABI 7, seccomp), "
        )),
        "{output:?}"
    );
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[isolation]\nrequire_sandbox = \"full\"\n",
    );
    let output = env.run_command(without_user_namespaces(&command), "");
    assert!(
        output.stdout.contains(&format!(
            "refusing to run it without namespaces ({CANNOT}): the config sets require_sandbox = \"full\""
        )),
        "{output:?}"
    );
}

#[test]
fn require_sandbox_full_refuses_a_pack_without_namespaces() {
    let env = Env::new();
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[isolation]\nrequire_sandbox = \"full\"\n",
    );
    let (line, _) = tools_line(&env, false);
    assert!(line.contains("sandboxed (namespaces, "), "{line}");
    let (line, out) = tools_line(&env, true);
    assert!(line.is_empty(), "{out}");
    assert!(
        out.contains(&format!(
            "Failed to load tool pack {}: refusing to run it without namespaces (the config sets namespaces = false): the config sets require_sandbox = \"full\"",
            canonical(&hostile()).display()
        )),
        "{out}"
    );
}

#[test]
fn an_isolated_pack_gets_only_the_basic_environment_and_what_is_granted() {
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
