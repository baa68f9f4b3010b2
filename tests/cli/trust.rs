//! Project trust: what a checkout ships (`.xcsh/config.toml`,
//! `.xcsh/plugins`, what that config names) runs no code until
//! `xcsh trust`, a change asks again, and a project never widens the
//! user's policy.

use std::path::Path;

use serde_json::Value;

use crate::support::{Env, Output, arg, batch_rename, canonical, copy_pack, pack_path, write};

/// `xcsh tools --json` in `env`, with `XCSH_LOAD_MARKER` set to `marker`.
fn tools_json(env: &Env, marker: &Path) -> Value {
    let mut command = env.command(&["tools", "--json"]);
    command.env("XCSH_LOAD_MARKER", marker);
    let output = env.run_command(command, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    serde_json::from_str(&output.stdout).unwrap()
}

fn tool_names(json: &Value) -> Vec<String> {
    json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

fn failures(json: &Value) -> Vec<String> {
    json["report"]["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect()
}

/// The canonical working directory, as trust records and reports name it.
fn dir(env: &Env) -> String {
    canonical(env.work()).display().to_string()
}

#[test]
fn a_checkouts_packs_run_no_code_until_the_directory_is_trusted() {
    let env = Env::new();
    let pack = copy_pack("fixture-load-marker", &env.work().join(".xcsh/plugins"));
    let marker = env.home.path().join("marker");

    let mut command = env.command(&["tools"]);
    command.env("XCSH_LOAD_MARKER", &marker);
    let output = env.run_command(command, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let d = dir(&env);
    let skipped = format!(
        "Skipped {d}/.xcsh/plugins: {d} is not a trusted project (to trust it: xcsh trust {d})"
    );
    assert!(
        output.stdout.ends_with(&format!(
            "Load report: 0 packs loaded, 0 failed, 0 conflicts, 1 warning\n  {skipped}\n"
        )),
        "{}",
        output.stdout
    );
    assert!(!marker.exists(), "the pack's load-time code ran");
    // Every front end skips it the same way.
    let mut command = env.command(&["run"]);
    command.env("XCSH_LOAD_MARKER", &marker);
    let output = env.run_command(command, "");
    assert_eq!(output.stderr, format!("warning: {skipped}\n"));
    assert!(!marker.exists(), "the pack's load-time code ran");

    let hash = xcsh_loader::sha256_hex(&std::fs::read(&pack).unwrap());
    let output = env.trust();
    assert_eq!(
        output.stdout,
        format!(
            "Trusted {d}: no config, 1 pack\n  {hash}  {}\n",
            canonical(&pack).display()
        )
    );
    let json = tools_json(&env, &marker);
    assert!(
        tool_names(&json).contains(&"marker_tool".to_owned()),
        "{json:#}"
    );
    assert_eq!(strings(&json["report"]["warnings"]), Vec::<String>::new());
    // Seen for the first time: opened in a child process first, then here.
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "loaded\nloaded\n"
    );
    // Seen before: opened here only.
    std::fs::remove_file(&marker).unwrap();
    tools_json(&env, &marker);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "loaded\n");
}

#[test]
fn a_changed_config_asks_again_and_trusting_again_loads_it() {
    let env = Env::new();
    let pack = copy_pack("batch-rename", &env.work().join("vendor"));
    let name = pack.file_name().unwrap().to_str().unwrap().to_owned();
    let config = format!("plugins = [\"../vendor/{name}\"]\n");
    env.write(".xcsh/config.toml", &config);
    let marker = env.home.path().join("marker");
    env.trust();
    let json = tools_json(&env, &marker);
    assert!(tool_names(&json).contains(&"batch_rename_preview".to_owned()));

    env.write(
        ".xcsh/config.toml",
        &format!("{config}tool_timeout_secs = 5\n"),
    );
    let json = tools_json(&env, &marker);
    assert!(!tool_names(&json).contains(&"batch_rename_preview".to_owned()));
    let d = dir(&env);
    assert_eq!(
        strings(&json["report"]["warnings"]),
        [format!(
            "Skipped {d}/.xcsh/config.toml: {d}/.xcsh/config.toml changed since {d} was trusted (to trust it again: xcsh trust {d})"
        )]
    );
    env.trust();
    let json = tools_json(&env, &marker);
    assert!(tool_names(&json).contains(&"batch_rename_preview".to_owned()));
}

#[test]
fn a_changed_pack_is_refused_and_a_new_one_is_skipped() {
    let env = Env::new();
    let plugins = env.work().join(".xcsh/plugins");
    let pack = copy_pack("fixture-conflict-a", &plugins);
    env.trust();
    let trusted = xcsh_loader::sha256_hex(&std::fs::read(&pack).unwrap());
    // Another library renamed over it, as an update would.
    let replacement = plugins.join("incoming");
    std::fs::copy(pack_path("fixture-conflict-b"), &replacement).unwrap();
    std::fs::rename(&replacement, &pack).unwrap();
    let changed = xcsh_loader::sha256_hex(&std::fs::read(&pack).unwrap());
    let added = copy_pack("batch-rename", &plugins);

    let json = tools_json(&env, &env.home.path().join("marker"));
    let d = dir(&env);
    assert_eq!(
        failures(&json),
        [format!(
            "Failed to load tool pack {}: changed since the project was trusted (SHA-256 {changed}, trusted {trusted}); to load it, run: xcsh trust {d}",
            pack.display()
        )]
    );
    assert_eq!(
        strings(&json["report"]["warnings"]),
        [format!(
            "Skipped {}: new in {d} since it was trusted (to trust it again: xcsh trust {d})",
            added.display()
        )]
    );
    assert_eq!(tool_names(&json), ["resolve", "ast_edit"]);
}

#[test]
fn a_project_allow_list_never_widens_the_users_and_may_narrow_it() {
    let env = Env::new();
    let good = batch_rename();
    let hostile = pack_path("fixture-hostile");
    let hash = |path: &Path| xcsh_loader::sha256_hex(&std::fs::read(path).unwrap());
    // The user pins batch-rename only.
    write(
        &env.user_config_dir().join("config.toml"),
        &format!("[allow_list]\n{:?} = \"{}\"\n", arg(&good), hash(&good)),
    );
    // The project names the hostile pack and lists it, with its right hash.
    let config = env.write(
        ".xcsh/config.toml",
        &format!(
            "plugins = [{h:?}]\n[allow_list]\n{h:?} = \"{}\"\n",
            hash(&hostile),
            h = arg(&hostile)
        ),
    );
    env.trust();
    let output: Output = env.run(&["tools", "--json", "--plugin", arg(&good)], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let json: Value = serde_json::from_str(&output.stdout).unwrap();
    assert_eq!(
        failures(&json),
        [
            // The project's list narrows the user's --plugin too.
            format!(
                "Failed to load tool pack {}: not in the project's allow-list ({})",
                good.display(),
                canonical(&config).display()
            ),
            // And cannot add what the user did not allow.
            format!(
                "Failed to load tool pack {}: not in the allow-list",
                hostile.display()
            ),
        ]
    );
}

#[test]
fn trust_can_be_listed_and_revoked() {
    let env = Env::new();
    copy_pack("fixture-conflict-a", &env.work().join(".xcsh/plugins"));
    let d = dir(&env);
    assert_eq!(
        env.run(&["trust", "--list"], "").stdout,
        "No trusted projects.\n"
    );
    env.trust();
    let output = env.run(&["trust", "--list"], "");
    assert_eq!(output.stdout, format!("{d}: no config, 1 pack\n"));

    let output = env.run(&["trust", "--revoke"], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stdout, format!("Revoked trust in {d}\n"));
    let json = tools_json(&env, &env.home.path().join("marker"));
    assert_eq!(tool_names(&json), ["resolve", "ast_edit"]);

    let output = env.run(&["trust", "--revoke", arg(env.work())], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!("error: {d} is not a trusted project\n")
    );
}

/// A working directory whose name is not UTF-8 can be trusted: the trust
/// record keeps its path byte for byte (`bytes:` and its hexadecimal), and
/// the next session there finds it trusted.
#[cfg(unix)]
#[test]
fn a_directory_whose_name_is_not_utf8_can_be_trusted() {
    use std::os::unix::ffi::OsStrExt as _;
    let env = Env::new();
    let dir = env.work().join(std::ffi::OsStr::from_bytes(b"w\xff"));
    std::fs::create_dir(&dir).unwrap();
    let mut trust = env.command(&["trust", "."]);
    trust.current_dir(&dir);
    let output = env.run_command(trust, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    assert!(output.stdout.starts_with("Trusted "), "{output:?}");
    let record =
        std::fs::read_to_string(env.user_data_dir().join("trusted-projects.json")).unwrap();
    let canonical = std::fs::canonicalize(&dir).unwrap();
    let hex: String = canonical
        .as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert!(record.contains(&format!("\"bytes:{hex}\"")), "{record}");
    let mut tools = env.command(&["tools"]);
    tools.current_dir(&dir);
    let output = env.run_command(tools, "");
    assert_eq!(output.code, Some(0), "{output:?}");
}
