//! `xcsh pack add/list/remove/verify` and installed packs in sessions:
//! offered from the registry, opened at the first call, once.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{Env, Output, canonical, copy_pack};

mod crate_dir;
mod descriptors;
mod project;
mod swap;

/// Copies the built pack `name` into the working directory's `packs/`.
fn pack(env: &Env, name: &str) -> PathBuf {
    canonical(&copy_pack(name, &env.work().join("packs")))
}

fn ok(output: Output) -> Output {
    assert_eq!(output.code, Some(0), "{output:?}");
    output
}

/// `xcsh ARGS` with the load marker file set.
fn run_marked(env: &Env, args: &[&str], stdin: &str, marker: &Path) -> Output {
    let mut command = env.command(args);
    command.env("XCSH_LOAD_MARKER", marker);
    env.run_command(command, stdin)
}

/// Calls load-marker's tool twice in one session: both calls answer, and
/// the pack was opened once (one line in `marker`).
fn calling_twice_opens_once(env: &Env, marker: &Path) {
    let calls = "{\"tool\": \"marker_tool\"}\n{\"tool\": \"marker_tool\"}\n";
    let output = ok(run_marked(env, &["run"], calls, marker));
    assert_eq!(
        results(&output),
        [
            (false, "from load-marker".to_owned()),
            (false, "from load-marker".to_owned())
        ]
    );
    assert_eq!(fs::read_to_string(marker).unwrap(), "loaded\n");
}

fn list_json(env: &Env) -> Value {
    serde_json::from_str(&ok(env.run(&["pack", "list", "--json"], "")).stdout).unwrap()
}

fn states(json: &Value) -> Vec<(String, String)> {
    json["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The text of each result line of an `xcsh run`.
fn results(output: &Output) -> Vec<(bool, String)> {
    output
        .stdout
        .lines()
        .map(|line| {
            let json: Value = serde_json::from_str(line).unwrap();
            let result = &json["result"];
            (
                result["isError"].as_bool().unwrap(),
                result["content"][0]["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn add_list_and_remove_a_pack() {
    let env = Env::new();
    let path = pack(&env, "batch-rename");
    let output = ok(env.run(&["pack", "add", "packs/libbatch_rename.so"], ""));
    assert_eq!(
        output.stdout,
        format!(
            "Added pack batch-rename 0.1.0 ({}): batch_rename_preview\n",
            path.display()
        )
    );
    let registry = env.user_data_dir().join("packs.json");
    let listed = ok(env.run(&["pack", "list"], "")).stdout;
    assert_eq!(
        listed,
        format!(
            "Installed packs (1, {}):\n  batch-rename 0.1.0  ok  in-process  batch_rename_preview  {}\n",
            registry.display(),
            path.display()
        )
    );
    let json = list_json(&env);
    let entry = &json["packs"][0];
    assert_eq!(entry["abiVersion"], "2.0.0");
    assert_eq!(entry["isolated"], false);
    assert_eq!(
        entry["sha256"],
        xcsh_loader::sha256_hex(&fs::read(&path).unwrap())
    );
    assert_eq!(entry["tools"][0]["label"], "Batch Rename");
    assert_eq!(entry["tools"][0]["hints"]["readOnly"], true);
    assert_eq!(entry["tools"][0]["parameters"]["type"], "object");

    let output = ok(env.run(&["pack", "verify"], ""));
    assert_eq!(output.stdout, "ok       batch-rename 0.1.0\n");

    let output = ok(env.run(&["pack", "remove", "batch-rename"], ""));
    assert_eq!(
        output.stdout,
        format!("Removed pack batch-rename 0.1.0 ({})\n", path.display())
    );
    assert_eq!(
        ok(env.run(&["pack", "list"], "")).stdout,
        "No installed packs (to add one: xcsh pack add PATH)\n"
    );
    let output = env.run(&["pack", "remove", "batch-rename"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        "error: no installed pack named batch-rename (see: xcsh pack list)\n"
    );
}

#[test]
fn installed_tools_are_offered_without_opening_the_pack_and_it_opens_once() {
    let env = Env::new();
    let path = pack(&env, "fixture-load-marker");
    ok(env.run(&["pack", "add", path.to_str().unwrap()], ""));
    let marker = env.home.path().join("marker");

    let output = ok(run_marked(&env, &["tools"], "", &marker));
    assert!(
        output.stdout.contains(&format!(
            "  marker_tool  Marker    model  fixture-load-marker 0.1.0 ({}), installed, not opened\n",
            path.display()
        )),
        "{}",
        output.stdout
    );
    assert!(!marker.exists(), "xcsh tools opened the pack");

    // A session that calls only other tools never opens it.
    let output = ok(run_marked(
        &env,
        &["run"],
        "{\"tool\": \"resolve\", \"arguments\": {\"action\": \"apply\", \"reason\": \"r\"}}\n",
        &marker,
    ));
    assert_eq!(
        results(&output),
        [(
            true,
            "No pending action to resolve. Nothing to apply or discard.".to_owned()
        )]
    );
    assert!(
        !marker.exists(),
        "a session that never called the pack opened it"
    );

    // Called twice: opened once.
    calling_twice_opens_once(&env, &marker);
}

#[test]
fn an_isolated_installed_pack_starts_its_process_once_at_first_use() {
    let env = Env::new();
    let path = pack(&env, "fixture-load-marker");
    let output = ok(env.run(&["pack", "add", "--isolate", path.to_str().unwrap()], ""));
    assert_eq!(
        output.stdout,
        format!(
            "Added pack fixture-load-marker 0.1.0 ({}, isolated): marker_tool\n",
            path.display()
        )
    );
    // In the working directory: an isolated pack's temporary directory
    // may be a private one.
    let marker = env.work().join("marker");
    env.grant_env(&path, &["XCSH_LOAD_MARKER"]);
    let output = ok(run_marked(&env, &["tools"], "", &marker));
    assert!(
        output
            .stdout
            .contains("), installed, isolated, not opened\n"),
        "{}",
        output.stdout
    );
    assert!(!marker.exists());
    calling_twice_opens_once(&env, &marker);
}

#[test]
fn a_library_changed_after_add_is_refused_at_first_use_and_flagged() {
    let env = Env::new();
    let path = pack(&env, "fixture-load-marker");
    ok(env.run(&["pack", "add", path.to_str().unwrap()], ""));
    let added = xcsh_loader::sha256_hex(&fs::read(&path).unwrap());

    // Same size, inode and modification time, other contents: only the
    // hash of the file opened tells.
    let metadata = fs::metadata(&path).unwrap();
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    fs::write(&path, &bytes).unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(metadata.modified().unwrap())
        .unwrap();
    let now = xcsh_loader::sha256_hex(&bytes);
    let marker = env.home.path().join("marker");
    let output = ok(run_marked(
        &env,
        &["run"],
        "{\"tool\": \"marker_tool\"}\n",
        &marker,
    ));
    let message = format!(
        "Tool marker_tool is unavailable: installed pack fixture-load-marker failed to open: changed since it was added (SHA-256 {now}, added {added}); to use it, run: xcsh pack add {}",
        path.display()
    );
    assert_eq!(results(&output), [(true, message)]);
    assert!(!marker.exists(), "a changed pack was opened");
    assert_eq!(
        states(&list_json(&env)),
        [("fixture-load-marker".to_owned(), "failed".to_owned())]
    );
    let output = env.run(&["pack", "verify"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stdout,
        format!(
            "changed  fixture-load-marker 0.1.0: its SHA-256 is {now}, added {added} (to accept it: xcsh pack add {})\n",
            path.display()
        )
    );
    assert_eq!(
        output.stderr,
        "error: 1 of 1 installed pack failed verification\n"
    );

    // A file that grew is flagged by its size alone.
    bytes.push(0);
    fs::write(&path, &bytes).unwrap();
    assert_eq!(
        states(&list_json(&env)),
        [("fixture-load-marker".to_owned(), "changed".to_owned())]
    );
    let output = ok(run_marked(
        &env,
        &["run"],
        "{\"tool\": \"marker_tool\"}\n",
        &marker,
    ));
    assert!(
        results(&output)[0].1.ends_with(&format!(
            "changed since it was added (its size and modification time changed); to use it, run: xcsh pack add {}",
            path.display()
        )),
        "{:?}",
        results(&output)
    );

    // Adding it again accepts it (a real library again).
    fs::copy(crate::support::pack_path("fixture-load-marker"), &path).unwrap();
    let output = ok(env.run(&["pack", "add", path.to_str().unwrap()], ""));
    assert!(
        output
            .stdout
            .starts_with("Updated pack fixture-load-marker 0.1.0"),
        "{}",
        output.stdout
    );
    assert_eq!(
        states(&list_json(&env)),
        [("fixture-load-marker".to_owned(), "ok".to_owned())]
    );
    ok(env.run(&["pack", "verify", "fixture-load-marker"], ""));
}

#[test]
fn a_pack_whose_load_time_code_crashes_is_refused_by_add() {
    let env = Env::new();
    let path = pack(&env, "fixture-load-abort");
    let output = env.run(&["pack", "add", path.to_str().unwrap()], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!(
            "error: cannot add {}: its process was killed by signal SIGABRT while opening the pack\n",
            path.display()
        )
    );
    assert_eq!(output.stdout, "");
    assert!(!env.user_data_dir().join("packs.json").exists());
}

#[test]
fn a_tool_name_conflict_is_refused_unless_replace_says_which_wins() {
    let env = Env::new();
    let a = pack(&env, "fixture-conflict-a");
    let b = pack(&env, "fixture-conflict-b");
    ok(env.run(&["pack", "add", a.to_str().unwrap()], ""));
    let output = env.run(&["pack", "add", b.to_str().unwrap()], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!(
            "error: cannot add {}: Tool name \"shared_name\" conflicts with existing tool (of installed pack fixture-conflict-a; to remove that pack instead: --replace)\n",
            b.display()
        )
    );
    let output = ok(env.run(&["pack", "add", "--replace", b.to_str().unwrap()], ""));
    assert_eq!(
        output.stdout,
        format!(
            "Removed pack fixture-conflict-a 0.1.0: its tool shared_name conflicts with fixture-conflict-b\nAdded pack fixture-conflict-b 0.1.0 ({}): shared_name, only_in_b\n",
            b.display()
        )
    );
    assert_eq!(
        states(&list_json(&env)),
        [("fixture-conflict-b".to_owned(), "ok".to_owned())]
    );
}

#[cfg(unix)]
#[test]
fn a_pack_others_can_write_is_refused_by_add() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let path = pack(&env, "batch-rename");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    let output = env.run(&["pack", "add", path.to_str().unwrap()], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!(
            "error: cannot add {p}: refusing a pack writable by other users: {p} (fix: chmod o-w {p})\n",
            p = path.display()
        )
    );
}

#[test]
fn a_directory_that_is_not_a_crate_is_refused_by_add() {
    let env = Env::new();
    fs::create_dir(env.work().join("empty")).unwrap();
    let output = env.run(&["pack", "add", "empty"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!(
            "error: {}/empty is a directory without a Cargo.toml: give a pack library or a pack crate directory\n",
            env.work().display()
        )
    );
}

#[test]
fn recorded_schemas_check_arguments_before_the_pack_opens_and_a_bad_one_refuses_calls() {
    let env = Env::new();
    let path = pack(&env, "fixture-load-marker");
    ok(env.run(&["pack", "add", path.to_str().unwrap()], ""));
    let marker = env.home.path().join("marker");

    // Arguments the recorded schema refuses never open the pack.
    let output = ok(run_marked(
        &env,
        &["run"],
        "{\"tool\": \"marker_tool\", \"arguments\": [\"not\", \"an object\"]}\n",
        &marker,
    ));
    let [(true, text)] = <[_; 1]>::try_from(results(&output)).unwrap() else {
        panic!("{output:?}");
    };
    assert!(
        text.starts_with("Invalid arguments for marker_tool: "),
        "{text}"
    );
    assert!(!marker.exists(), "refused arguments opened the pack");

    // A registry whose recorded schema is not a valid JSON schema (edited
    // by hand): the tool is still listed, and each call is refused.
    let registry = env.user_data_dir().join("packs.json");
    let mut json: Value = serde_json::from_str(&fs::read_to_string(&registry).unwrap()).unwrap();
    json["packs"]["fixture-load-marker"]["tools"][0]["parameters"] =
        serde_json::json!({"type": "object", "required": 5});
    fs::write(&registry, serde_json::to_string(&json).unwrap()).unwrap();
    let output = ok(env.run(&["tools"], ""));
    assert!(
        output.stdout.contains("  marker_tool  "),
        "{}",
        output.stdout
    );
    let output = ok(run_marked(
        &env,
        &["run"],
        "{\"tool\": \"marker_tool\"}\n",
        &marker,
    ));
    let [(true, text)] = <[_; 1]>::try_from(results(&output)).unwrap() else {
        panic!("{output:?}");
    };
    assert!(
        text.starts_with("Tool marker_tool is unavailable: invalid parameters schema: "),
        "{text}"
    );
    assert!(
        !marker.exists(),
        "a call refused by its schema opened the pack"
    );
}

#[test]
fn a_pack_opened_at_start_up_shadows_an_installed_one_and_the_same_file_is_offered_once() {
    let env = Env::new();
    let installed = pack(&env, "batch-rename");
    ok(env.run(&["pack", "add", installed.to_str().unwrap()], ""));
    let dev = canonical(&copy_pack("batch-rename", &env.work().join("dev")));

    // A development build of the same pack, given with --plugin, wins.
    let output = ok(env.run(&["tools", "--plugin", dev.to_str().unwrap()], ""));
    let row = output
        .stdout
        .lines()
        .find(|line| line.trim_start().starts_with("batch_rename_preview "))
        .unwrap_or_else(|| panic!("{}", output.stdout));
    assert!(
        row.ends_with(&format!("  batch-rename 0.1.0 ({})", dev.display())),
        "{row}"
    );
    for line in [
        format!(
            "  Tool name \"batch_rename_preview\" conflicts with existing tool (in {})\n",
            installed.display()
        ),
        format!(
            "  Installed tool pack batch-rename 0.1.0 at {} (installed, not opened): batch_rename_preview\n",
            installed.display()
        ),
    ] {
        assert!(output.stdout.contains(&line), "{line}\n{}", output.stdout);
    }

    // The installed file itself, given with --plugin: opened at start-up,
    // offered once, and not reported as installed.
    let output = ok(env.run(&["tools", "--plugin", installed.to_str().unwrap()], ""));
    let rows = output
        .stdout
        .lines()
        .filter(|line| line.trim_start().starts_with("batch_rename_preview "))
        .count();
    assert_eq!(rows, 1, "{}", output.stdout);
    assert!(
        !output.stdout.contains("Installed tool pack"),
        "{}",
        output.stdout
    );
    assert!(
        !output.stdout.contains("conflicts with existing tool"),
        "{}",
        output.stdout
    );
}

#[test]
fn a_pack_whose_opening_hangs_is_stopped_by_add_and_at_first_use() {
    let env = Env::new();
    let path = pack(&env, "fixture-hostile");
    let shown = path.to_str().unwrap();

    // `add`: the check processes are stopped at --open-timeout.
    let mut command = env.command(&["pack", "add", "--open-timeout", "1", shown]);
    command.env("XCSH_FIXTURE_HANG_ON_OPEN", "1");
    let output = env.run_command(command, "");
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(
        output.stderr,
        format!(
            "error: cannot add {shown}: its process did not open the pack within 1s (stopped)\n"
        )
    );
    assert!(states(&list_json(&env)).is_empty());

    // An isolated installed pack that hangs at its first use: stopped at
    // the tool time limit, the call refused, the pack marked failed.
    ok(env.run(&["pack", "add", "--isolate", shown], ""));
    env.grant_env(&path, &["XCSH_FIXTURE_HANG_ON_OPEN"]);
    let mut command = env.command(&["run", "--tool-timeout", "1"]);
    command.env("XCSH_FIXTURE_HANG_ON_OPEN", "1");
    let output = ok(env.run_command(
        command,
        "{\"tool\": \"push_marker\", \"arguments\": {\"tag\": \"t\"}}\n",
    ));
    assert_eq!(
        results(&output),
        [(
            true,
            "Tool push_marker is unavailable: installed pack fixture-hostile failed to open: \
             its process did not open the pack within 1s (stopped)"
                .to_owned()
        )]
    );
    assert_eq!(
        states(&list_json(&env)),
        [("fixture-hostile".to_owned(), "failed".to_owned())]
    );
}

#[test]
fn an_invalid_user_registry_stops_the_session_in_one_line() {
    let env = Env::new();
    let registry = env.user_data_dir().join("packs.json");
    fs::create_dir_all(registry.parent().unwrap()).unwrap();
    fs::write(&registry, "{\"version\": 1, \"packs\": []}").unwrap();
    for args in [&["tools"][..], &["run"], &["pack", "list"]] {
        let output = env.run(args, "");
        assert_eq!(output.code, Some(1), "{args:?}: {output:?}");
        assert_eq!(
            output.stderr,
            format!(
                "error: invalid pack registry {}: invalid type: sequence, expected a map at line 1 column 24\n",
                registry.display()
            ),
            "{args:?}"
        );
    }
}
