//! A pack's own configuration table and `--allow-outside-root`, as a
//! loaded pack sees them through the agent, in-process and isolated: the
//! table reaches the factory, a bad key fails the load in one line, a
//! trusted project can only narrow it, and `ToolContext::confined_path`
//! refuses `..`, absolute paths and links leading out unless the user
//! allowed it.

use std::fs;

use serde_json::json;

use crate::support::{Env, arg, canonical, json_lines, pack_path, write};

fn configured() -> std::path::PathBuf {
    pack_path("fixture-configured")
}

fn user_config(env: &Env, table: &str) {
    write(
        &env.user_config_dir().join("config.toml"),
        &format!("[packs.fixture-configured]\n{table}"),
    );
}

fn call(tool: &str, arguments: serde_json::Value) -> String {
    json!({"tool": tool, "arguments": arguments}).to_string() + "\n"
}

/// The text of each result of `xcsh run` with `extra` flags over `script`,
/// and what it printed on stderr.
fn run(env: &Env, extra: &[&str], script: &str) -> (Vec<String>, String) {
    let pack = configured();
    let mut args = vec!["run", "--plugin", arg(&pack)];
    args.extend_from_slice(extra);
    args.push("-");
    let output = env.run(&args, script);
    assert_eq!(output.code, Some(0), "{output:?}");
    let texts = json_lines(&output.stdout)
        .iter()
        .map(|line| {
            line["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    (texts, output.stderr)
}

const MODES: [&[&str]; 2] = [&[], &["--isolate"]];

#[test]
fn the_users_table_reaches_the_pack_in_process_and_isolated() {
    let env = Env::new();
    user_config(&env, "greeting = \"hi\"\ntimes = 2\n");
    for mode in MODES {
        let (texts, stderr) = run(&env, mode, &call("configured_greeting", json!({})));
        assert_eq!(texts, ["hi hi"], "{mode:?}: {stderr}");
    }
    // Without a table the pack's defaults apply.
    let env = Env::new();
    let (texts, _) = run(&env, &[], &call("configured_greeting", json!({})));
    assert_eq!(texts, ["hello"]);
}

#[test]
fn a_bad_key_fails_the_load_in_one_line() {
    let env = Env::new();
    let pack = canonical(&configured());
    for (table, why) in [
        (
            "greting = \"hi\"\n",
            "[packs.fixture-configured]: Additional properties are not allowed ('greting' was unexpected)",
        ),
        (
            "times = \"twice\"\n",
            "[packs.fixture-configured] times: \"twice\" is not of type \"integer\"",
        ),
    ] {
        user_config(&env, table);
        for mode in MODES {
            let (texts, stderr) = run(&env, mode, "");
            assert!(texts.is_empty());
            assert_eq!(
                stderr,
                format!(
                    "warning: Failed to load tool pack {}: {why}\n",
                    pack.display()
                ),
                "{mode:?}"
            );
        }
    }
}

#[test]
fn a_trusted_project_can_only_narrow_the_table() {
    let env = Env::new();
    user_config(&env, "greeting = \"hi\"\ntimes = 3\n");
    let project = env.write(
        ".xcsh/config.toml",
        "[packs.fixture-configured]\ntimes = 2\ngreeting = \"yo\"\n",
    );
    env.trust();
    let (texts, stderr) = run(&env, &[], &call("configured_greeting", json!({})));
    assert_eq!(texts, ["hi hi"]);
    assert_eq!(
        stderr,
        format!(
            "warning: Ignoring [packs.fixture-configured] greeting in {}: \"yo\" differs from the user's \"hi\" (a project can only narrow a pack's configuration)\n",
            project.display()
        )
    );
}

#[test]
fn confined_paths_are_refused_outside_unless_the_user_allows_it() {
    let env = Env::new();
    let root = canonical(env.work());
    let elsewhere = tempfile::tempdir().unwrap();
    let elsewhere = canonical(elsewhere.path());
    std::os::unix::fs::symlink(&elsewhere, root.join("out")).unwrap();
    let outside = |path: &str, resolved: &std::path::Path| {
        format!(
            "path {path} is outside the working directory: it resolves to {} \
             (start xcsh with --allow-outside-root to allow this)",
            resolved.display()
        )
    };
    let script: String = ["../x", "/etc/x", "out/x", "inside/x"]
        .iter()
        .map(|path| call("configured_where", json!({"path": path})))
        .collect();
    for mode in MODES {
        let (texts, stderr) = run(&env, mode, &script);
        assert_eq!(
            texts,
            [
                outside("../x", &root.parent().unwrap().join("x")),
                outside("/etc/x", "/etc/x".as_ref()),
                outside("out/x", &elsewhere.join("x")),
                root.join("inside/x").display().to_string(),
            ],
            "{mode:?}: {stderr}"
        );
        let mut allowed = mode.to_vec();
        allowed.push("--allow-outside-root");
        let (texts, stderr) = run(&env, &allowed, &script);
        assert_eq!(
            texts,
            [
                root.parent().unwrap().join("x").display().to_string(),
                "/etc/x".to_owned(),
                elsewhere.join("x").display().to_string(),
                root.join("inside/x").display().to_string(),
            ],
            "{mode:?}: {stderr}"
        );
    }
    // Resolving writes nothing.
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

/// A table named by the crate name (`_`) instead of the package name
/// (`-`) configures nothing: `xcsh tools` and `xcsh run` say so in one
/// line naming the table, the file and the pack meant, and the pack runs
/// with its defaults.
#[test]
fn a_table_naming_no_loaded_pack_is_a_warning_naming_the_closest_pack() {
    let env = Env::new();
    let config = write(
        &env.user_config_dir().join("config.toml"),
        "[packs.fixture_configured]\ngreeting = \"hi\"\n",
    );
    let warning = format!(
        "Ignoring [packs.fixture_configured] in {}: no pack named fixture_configured is loaded \
         (a pack's table is named by its package name, as xcsh tools lists it); did you mean \
         [packs.fixture-configured]?",
        config.display()
    );
    let (texts, stderr) = run(&env, &[], &call("configured_greeting", json!({})));
    assert_eq!(texts, ["hello"]);
    assert_eq!(stderr, format!("warning: {warning}\n"));

    let pack = configured();
    let listed = env.run(&["tools", "--plugin", arg(&pack)], "");
    assert_eq!(listed.code, Some(0), "{listed:?}");
    assert!(
        listed
            .stdout
            .contains("1 pack loaded, 0 failed, 0 conflicts, 1 warning\n"),
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.ends_with(&format!("  {warning}\n")),
        "{}",
        listed.stdout
    );
    assert_eq!(listed.stderr, "");

    // Named by its package name, the table is the pack's and nothing is said.
    user_config(&env, "greeting = \"hi\"\n");
    let (texts, stderr) = run(&env, &[], &call("configured_greeting", json!({})));
    assert_eq!((texts, stderr), (vec!["hi".to_owned()], String::new()));
}
