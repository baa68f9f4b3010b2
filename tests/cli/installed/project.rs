//! A project's installed packs (`.xcsh/packs.json`, `xcsh pack add
//! --project`): used only in a trusted directory and only as trusted, kept
//! trusted when xcsh itself writes them, and never winning over the
//! user's.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::{list_json, ok, pack, results};
use crate::support::{Env, canonical};

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The canonical working directory, as trust records and reports name it.
fn dir(env: &Env) -> String {
    canonical(env.work()).display().to_string()
}

/// `xcsh tools --json` with the load marker file set.
fn tools_json(env: &Env, marker: &Path) -> Value {
    let mut command = env.command(&["tools", "--json"]);
    command.env("XCSH_LOAD_MARKER", marker);
    serde_json::from_str(&ok(env.run_command(command, "")).stdout).unwrap()
}

/// Each tool's name and the pack it comes from.
fn tool_packs(json: &Value) -> Vec<(String, String)> {
    json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_owned(),
                t["source"]["pack"].as_str().unwrap_or("").to_owned(),
            )
        })
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

fn warnings(json: &Value) -> Vec<String> {
    strings(&json["report"]["warnings"])
}

/// Each listed pack's name, scope and state.
fn listed(json: &Value) -> Vec<[String; 3]> {
    json["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| ["name", "scope", "state"].map(|key| p[key].as_str().unwrap().to_owned()))
        .collect()
}

/// `[name, scope, state]`.
fn row(name: &str, scope: &str, state: &str) -> [String; 3] {
    [name, scope, state].map(str::to_owned)
}

/// Flips the last byte of `path`, keeping its size, inode and modification
/// time: only a hash tells.
fn flip_last_byte(path: &Path) {
    let modified = fs::metadata(path).unwrap().modified().unwrap();
    let mut bytes = fs::read(path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    fs::write(path, &bytes).unwrap();
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
}

#[test]
fn a_project_registry_is_used_only_while_the_directory_is_trusted() {
    let env = Env::new();
    let path = pack(&env, "fixture-load-marker");
    let d = dir(&env);
    let output = env.run(
        &[
            "pack",
            "add",
            "--project",
            "packs/libfixture_load_marker.so",
        ],
        "",
    );
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!(
            "error: cannot add {d}/packs/libfixture_load_marker.so: {d} is not a trusted project (to trust it: xcsh trust {d})\n"
        )
    );
    assert!(!env.work().join(".xcsh").exists());

    assert_eq!(
        env.trust().stdout,
        format!("Trusted {d}: no config, 0 packs\n")
    );
    let output = ok(env.run(&["pack", "add", "--project", arg(&path)], ""));
    assert_eq!(
        output.stdout,
        format!(
            "Added pack fixture-load-marker 0.1.0 ({}) to the project: marker_tool\n",
            path.display()
        )
    );
    assert!(!env.user_data_dir().join("packs.json").exists());

    let marker = env.home.path().join("marker");
    let mut command = env.command(&["tools"]);
    command.env("XCSH_LOAD_MARKER", &marker);
    let output = ok(env.run_command(command, ""));
    assert!(
        output.stdout.contains(&format!(
            "  marker_tool  Marker    model  fixture-load-marker 0.1.0 ({p}), installed in project, not opened\n"
        , p = path.display())),
        "{}",
        output.stdout
    );
    assert!(
        output.stdout.ends_with(&format!(
            "Load report: 0 packs loaded, 0 failed, 0 conflicts, 0 warnings\n  Installed tool pack fixture-load-marker 0.1.0 at {} (installed in project, not opened): marker_tool\n",
            path.display()
        )),
        "{}",
        output.stdout
    );
    let json = tools_json(&env, &marker);
    let tool = &json["tools"].as_array().unwrap()[2];
    assert_eq!(tool["source"]["kind"], "installed");
    assert_eq!(tool["source"]["scope"], "project");
    assert!(!marker.exists(), "xcsh tools opened the pack");

    let mut command = env.command(&["run"]);
    command.env("XCSH_LOAD_MARKER", &marker);
    let output = ok(env.run_command(command, "{\"tool\": \"marker_tool\"}\n"));
    assert_eq!(results(&output), [(false, "from load-marker".to_owned())]);
    assert_eq!(fs::read_to_string(&marker).unwrap(), "loaded\n");
    fs::remove_file(&marker).unwrap();

    // Trust revoked: the registry is skipped like any project file.
    ok(env.run(&["trust", "--revoke"], ""));
    let json = tools_json(&env, &marker);
    assert_eq!(
        tool_packs(&json),
        [
            ("resolve".into(), String::new()),
            ("ast_edit".into(), String::new())
        ]
    );
    assert_eq!(
        warnings(&json),
        [format!(
            "Skipped {d}/.xcsh/packs.json: {d} is not a trusted project (to trust it: xcsh trust {d})"
        )]
    );
    let mut command = env.command(&["run"]);
    command.env("XCSH_LOAD_MARKER", &marker);
    let output = ok(env.run_command(command, "{\"tool\": \"marker_tool\"}\n"));
    assert_eq!(
        results(&output),
        [(true, "Unknown tool: marker_tool".to_owned())]
    );
    assert!(!marker.exists(), "an untrusted project's pack was opened");
}

#[test]
fn a_project_registry_changed_behind_xcshs_back_is_skipped_until_trusted_again() {
    let env = Env::new();
    let path = pack(&env, "fixture-load-marker");
    let d = dir(&env);
    let config = env.write(".xcsh/config.toml", "tool_timeout_secs = 60\n");
    env.trust();
    ok(env.run(&["pack", "add", "--project", arg(&path)], ""));
    let registry = env.work().join(".xcsh/packs.json");
    // The same packs, written by someone else: any change counts.
    let text = fs::read_to_string(&registry).unwrap();
    fs::write(&registry, format!("{text}\n")).unwrap();

    let marker = env.home.path().join("marker");
    let changed = format!(
        "{d}/.xcsh/packs.json changed since {d} was trusted (to trust it again: xcsh trust {d})"
    );
    let json = tools_json(&env, &marker);
    assert_eq!(
        warnings(&json),
        [format!("Skipped {d}/.xcsh/packs.json: {changed}")]
    );
    assert!(
        !tool_packs(&json)
            .iter()
            .any(|(tool, _)| tool == "marker_tool")
    );
    // Every front end says so.
    let output = ok(env.run(&["run"], ""));
    assert_eq!(
        output.stderr,
        format!("warning: Skipped {d}/.xcsh/packs.json: {changed}\n")
    );

    // xcsh's own commands do not launder the change into trust.
    let output = env.run(&["pack", "add", "--project", arg(&path)], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!("error: cannot add {}: {changed}\n", path.display())
    );
    let output = env.run(&["pack", "remove", "--project", "fixture-load-marker"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!("error: cannot remove fixture-load-marker: {changed}\n")
    );
    assert!(
        ok(env.run(&["pack", "list"], ""))
            .stdout
            .ends_with(&format!("  not used: {changed}\n")),
    );

    // Trusting it again records the registry as it is now.
    let hash = |path: &Path| xcsh_loader::sha256_hex(&fs::read(path).unwrap());
    assert_eq!(
        env.trust().stdout,
        format!(
            "Trusted {d}: its config, 0 packs, its pack registry\n  {}  {d}/.xcsh/config.toml\n  {}  {d}/.xcsh/packs.json\n",
            hash(&config),
            hash(&registry)
        )
    );
    assert_eq!(
        ok(env.run(&["trust", "--list"], "")).stdout,
        format!("{d}: its config, 0 packs, its pack registry\n")
    );
    let json = tools_json(&env, &marker);
    assert_eq!(warnings(&json), Vec::<String>::new());
    assert!(
        tool_packs(&json)
            .iter()
            .any(|(tool, _)| tool == "marker_tool")
    );

    // A registry removed behind xcsh's back is a change too (the rest of
    // the project still loads).
    fs::remove_file(&registry).unwrap();
    assert_eq!(
        warnings(&tools_json(&env, &marker)),
        [format!("Skipped {d}/.xcsh/packs.json: {changed}")]
    );
}

#[test]
fn the_users_registry_wins_a_tool_name_conflict_with_the_projects() {
    let env = Env::new();
    let a = pack(&env, "fixture-conflict-a");
    let b = pack(&env, "fixture-conflict-b");
    env.trust();
    ok(env.run(&["pack", "add", arg(&a)], ""));
    let refused = format!(
        "error: cannot add {}: Tool name \"shared_name\" conflicts with existing tool (of your installed pack fixture-conflict-a; your registry wins over the project's)\n",
        b.display()
    );
    let output = env.run(&["pack", "add", "--project", arg(&b)], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(output.stderr, refused);
    // --replace removes only from the registry being written.
    let output = env.run(&["pack", "add", "--project", "--replace", arg(&b)], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(output.stderr, refused);
    assert_eq!(
        listed(&list_json(&env)),
        [row("fixture-conflict-a", "user", "ok")]
    );

    // A project pack added first still loses in a session to a pack the
    // user installs later.
    ok(env.run(&["pack", "remove", "fixture-conflict-a"], ""));
    ok(env.run(&["pack", "add", "--project", arg(&b)], ""));
    ok(env.run(&["pack", "add", arg(&a)], ""));
    let json = tools_json(&env, &env.home.path().join("marker"));
    assert_eq!(
        tool_packs(&json),
        [
            ("resolve".into(), String::new()),
            ("ast_edit".into(), String::new()),
            ("shared_name".into(), "fixture-conflict-a".into()),
            ("only_in_b".into(), "fixture-conflict-b".into()),
        ]
    );
    let conflicts = &json["report"]["conflicts"];
    assert_eq!(conflicts.as_array().unwrap().len(), 1, "{conflicts}");
    assert_eq!(
        conflicts[0]["message"],
        "Tool name \"shared_name\" conflicts with existing tool"
    );
    assert_eq!(conflicts[0]["path"], b.display().to_string());
    assert_eq!(json["tools"][3]["source"]["scope"], "project");
    assert_eq!(json["tools"][2]["source"]["scope"], "user");
}

#[test]
fn xcshs_own_writes_keep_the_project_trusted() {
    let env = Env::new();
    let a = pack(&env, "fixture-conflict-a");
    let b = pack(&env, "fixture-conflict-b");
    let marker_pack = pack(&env, "fixture-load-marker");
    let d = dir(&env);
    env.trust();
    let marker = env.home.path().join("marker");
    let clean = |env: &Env| assert_eq!(warnings(&tools_json(env, &marker)), Vec::<String>::new());

    ok(env.run(&["pack", "add", "--project", arg(&a)], ""));
    clean(&env);
    // --replace within the project's registry.
    let output = ok(env.run(&["pack", "add", "--project", "--replace", arg(&b)], ""));
    assert_eq!(
        output.stdout,
        format!(
            "Removed pack fixture-conflict-a 0.1.0 from the project: its tool shared_name conflicts with fixture-conflict-b\nAdded pack fixture-conflict-b 0.1.0 ({}) to the project: shared_name, only_in_b\n",
            b.display()
        )
    );
    clean(&env);
    let output = ok(env.run(&["pack", "add", "--project", arg(&b)], ""));
    assert_eq!(
        output.stdout,
        format!(
            "Updated pack fixture-conflict-b 0.1.0 ({}) in the project: shared_name, only_in_b\n",
            b.display()
        )
    );
    let output = ok(env.run(&["pack", "remove", "--project", "fixture-conflict-b"], ""));
    assert_eq!(
        output.stdout,
        format!(
            "Removed pack fixture-conflict-b 0.1.0 ({}) from the project\n",
            b.display()
        )
    );
    clean(&env);
    assert_eq!(
        ok(env.run(&["pack", "list"], "")).stdout,
        format!(
            "No installed packs (to add one: xcsh pack add PATH)\nNo installed packs of the project ({d}/.xcsh/packs.json)\n"
        )
    );
    let output = env.run(&["pack", "remove", "--project", "fixture-conflict-b"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        "error: no installed pack named fixture-conflict-b in the project (see: xcsh pack list)\n"
    );

    // A failure at first use is written into the project's registry, and
    // `verify` clearing it: neither un-trusts the project.
    ok(env.run(&["pack", "add", "--project", arg(&marker_pack)], ""));
    flip_last_byte(&marker_pack);
    let output = ok(env.run(&["run"], "{\"tool\": \"marker_tool\"}\n"));
    assert!(results(&output)[0].0, "{output:?}");
    clean(&env);
    assert_eq!(
        listed(&list_json(&env)),
        [row("fixture-load-marker", "project", "failed")]
    );
    flip_last_byte(&marker_pack);
    let output = ok(env.run(&["pack", "verify"], ""));
    assert_eq!(
        output.stdout,
        "ok       fixture-load-marker 0.1.0 (project)\n"
    );
    clean(&env);
    assert_eq!(
        listed(&list_json(&env)),
        [row("fixture-load-marker", "project", "ok")]
    );
}

#[test]
fn pack_list_and_verify_show_both_registries_and_which_one_is_used() {
    let env = Env::new();
    let batch = pack(&env, "batch-rename");
    let marker_pack = pack(&env, "fixture-load-marker");
    let d = dir(&env);
    ok(env.run(&["pack", "add", arg(&batch)], ""));
    env.trust();
    ok(env.run(&["pack", "add", "--project", arg(&marker_pack)], ""));
    let user_registry = env.user_data_dir().join("packs.json");
    let table = format!(
        "Installed packs (1, {}):\n  batch-rename 0.1.0  ok  in-process  batch_rename_preview  {}\nInstalled packs of the project (1, {d}/.xcsh/packs.json):\n  fixture-load-marker 0.1.0  ok  in-process  marker_tool  {}\n",
        user_registry.display(),
        batch.display(),
        marker_pack.display()
    );
    assert_eq!(ok(env.run(&["pack", "list"], "")).stdout, table);
    let json = list_json(&env);
    assert_eq!(
        listed(&json),
        [
            row("batch-rename", "user", "ok"),
            row("fixture-load-marker", "project", "ok")
        ]
    );
    assert_eq!(json["registry"], user_registry.display().to_string());
    assert_eq!(
        json["project"],
        serde_json::json!({"registry": format!("{d}/.xcsh/packs.json"), "used": true, "detail": null})
    );
    let output = ok(env.run(&["pack", "verify"], ""));
    assert_eq!(
        output.stdout,
        "ok       batch-rename 0.1.0\nok       fixture-load-marker 0.1.0 (project)\n"
    );

    // Not trusted: listed, marked as not used, and not verified.
    ok(env.run(&["trust", "--revoke"], ""));
    let untrusted = format!("{d} is not a trusted project (to trust it: xcsh trust {d})");
    assert_eq!(
        ok(env.run(&["pack", "list"], "")).stdout,
        format!("{table}  not used: {untrusted}\n")
    );
    let json = list_json(&env);
    assert_eq!(json["project"]["used"], false);
    assert_eq!(json["project"]["detail"], untrusted.as_str());
    let output = ok(env.run(&["pack", "verify"], ""));
    assert_eq!(output.stdout, "ok       batch-rename 0.1.0\n");
    assert_eq!(
        output.stderr,
        format!("warning: Skipped {d}/.xcsh/packs.json: {untrusted}\n")
    );
}
