//! Where packs come from: flags, XCSH_PLUGIN_PATH, config files, default
//! directories; duplicates once; missing paths are warnings.

use serde_json::Value;

use crate::support::{Env, arg, batch_rename, canonical, copy_pack, write};

/// `xcsh tools --json` with `args`: the loaded packs' paths and the report.
fn report(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["tools", "--json"];
    all.extend_from_slice(args);
    let output = env.run(&all, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let json: Value = serde_json::from_str(&output.stdout).unwrap();
    json["report"].clone()
}

fn loaded_paths(report: &Value) -> Vec<String> {
    report["loaded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap().to_owned())
        .collect()
}

fn warnings(report: &Value) -> Vec<String> {
    report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_owned())
        .collect()
}

fn display(path: &std::path::Path) -> String {
    path.display().to_string()
}

#[test]
fn plugin_dir_loads_every_pack_inside() {
    let env = Env::new();
    let dir = env.work().join("packs");
    let rename = copy_pack("batch-rename", &dir);
    let conflict = copy_pack("fixture-conflict-a", &dir);
    write(&dir.join("README.txt"), "not a library");
    let report = report(&env, &["--plugin-dir", "packs"]);
    let mut expected = vec![display(&canonical(&rename)), display(&canonical(&conflict))];
    expected.sort();
    assert_eq!(loaded_paths(&report), expected);
    assert_eq!(warnings(&report), Vec::<String>::new());
}

#[test]
fn xcsh_plugin_path_takes_files_and_directories_and_warns_on_missing_ones() {
    let env = Env::new();
    let dir = env.work().join("in-dir");
    let in_dir = copy_pack("batch-rename", &dir);
    let file = copy_pack("fixture-conflict-a", &env.work().join("single"));
    let missing = env.work().join("gone");
    let list = std::env::join_paths([&dir, &missing, &file]).unwrap();
    let mut command = env.command(&["tools", "--json"]);
    command.env("XCSH_PLUGIN_PATH", &list);
    let output = env.run_command(command, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let report = serde_json::from_str::<Value>(&output.stdout).unwrap()["report"].clone();
    assert_eq!(
        loaded_paths(&report),
        [display(&canonical(&in_dir)), display(&canonical(&file))]
    );
    assert_eq!(
        warnings(&report),
        [format!(
            "Plugin path not found: {} (from XCSH_PLUGIN_PATH)",
            missing.display()
        )]
    );
}

#[test]
fn the_project_config_resolves_paths_against_its_directory() {
    let env = Env::new();
    let pack = copy_pack("batch-rename", &env.work().join("vendor"));
    let config = env.write(
        ".xcsh/config.toml",
        &format!(
            "plugins = [\"../vendor/{}\", \"missing.so\"]\n",
            pack.file_name().unwrap().to_str().unwrap()
        ),
    );
    env.trust();
    let report = report(&env, &[]);
    assert_eq!(loaded_paths(&report), [display(&canonical(&pack))]);
    assert_eq!(
        warnings(&report),
        [format!(
            "Plugin path not found: {} (from config {})",
            env.work().join(".xcsh/missing.so").display(),
            config.display()
        )]
    );
}

#[test]
fn the_user_config_and_the_default_directories_load_after_the_project() {
    let env = Env::new();
    let user_packs = env.home.path().join("user-packs");
    let from_user_config = copy_pack("fixture-conflict-b", &user_packs);
    write(
        &env.user_config_dir().join("config.toml"),
        &format!("plugin_dirs = [{:?}]\n", arg(&user_packs)),
    );
    let from_project_dir = copy_pack("batch-rename", &env.work().join(".xcsh/plugins"));
    let from_user_dir = copy_pack("fixture-conflict-a", &env.user_data_dir().join("plugins"));
    env.trust();
    let report = report(&env, &[]);
    // Order: config files, then .xcsh/plugins, then the user's data dir;
    // conflict-b comes first, so conflict-a's `shared_name` loses.
    assert_eq!(
        loaded_paths(&report),
        [
            display(&canonical(&from_user_config)),
            display(&canonical(&from_project_dir)),
            display(&canonical(&from_user_dir)),
        ]
    );
    assert_eq!(
        report["conflicts"][0]["message"],
        "Tool name \"shared_name\" conflicts with existing tool"
    );
    assert_eq!(report["conflicts"][0]["path"], display(&from_user_dir));
}

#[test]
fn a_pack_named_by_several_sources_loads_once() {
    let env = Env::new();
    let dir = env.work().join("packs");
    let pack = copy_pack("batch-rename", &dir);
    env.write(".xcsh/config.toml", "plugin_dirs = [\"../packs\"]\n");
    env.trust();
    let roundabout = format!(
        "packs/../packs/{}",
        pack.file_name().unwrap().to_str().unwrap()
    );
    let mut command = env.command(&[
        "tools",
        "--json",
        "--plugin",
        &roundabout,
        "--plugin",
        arg(&pack),
        "--plugin-dir",
        arg(&dir),
    ]);
    command.env("XCSH_PLUGIN_PATH", &dir);
    let output = env.run_command(command, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let report = serde_json::from_str::<Value>(&output.stdout).unwrap()["report"].clone();
    assert_eq!(loaded_paths(&report), [display(&canonical(&pack))]);
    assert_eq!(report["conflicts"], serde_json::json!([]));
}

#[test]
fn missing_paths_are_warnings_and_the_session_still_runs() {
    let env = Env::new();
    let missing = env.work().join("nope.so");
    let output = env.run(
        &["run", "--plugin", arg(&missing), "--plugin-dir", "no-dir"],
        "{\"tool\": \"resolve\", \"arguments\": {\"action\": \"apply\", \"reason\": \"r\"}}\n",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stderr,
        format!(
            "warning: Plugin path not found: {} (from --plugin)\nwarning: Plugin path not found: {} (from --plugin-dir)\n",
            missing.display(),
            env.work().join("no-dir").display()
        )
    );
    assert_eq!(output.stdout.lines().count(), 1);
}

/// A crate built without `crate-type = ["cdylib", ...]` leaves only its
/// rlib in target/: `--plugin` naming the library it would have made says
/// so and what to add, not just that the path is missing.
#[test]
fn a_missing_library_beside_its_rlib_says_the_crate_is_not_a_cdylib() {
    let env = Env::new();
    let built = crate::support::batch_rename();
    let debug = env.work().join("target/debug");
    std::fs::create_dir_all(&debug).unwrap();
    std::fs::copy(
        built.with_file_name("libbatch_rename.rlib"),
        debug.join("libmy_pack.rlib"),
    )
    .unwrap();
    let library = debug.join(xcsh_loader::discover::pack_file_name("my-pack"));
    let output = env.run(&["tools", "--plugin", arg(&library)], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    assert!(
        output.stdout.ends_with(&format!(
            "  Plugin path not found: {} (from --plugin); {} is there: the crate is built as an \
             rlib only; add crate-type = [\"cdylib\", \"rlib\"] under [lib] in its Cargo.toml \
             and rebuild\n",
            library.display(),
            debug.join("libmy_pack.rlib").display()
        )),
        "{}",
        output.stdout
    );
}

#[test]
fn an_invalid_config_file_stops_with_one_line() {
    let env = Env::new();
    let config = write(
        &env.user_config_dir().join("config.toml"),
        "plugin = [\"x.so\"]\n",
    );
    let expected = |config: &std::path::Path| {
        format!(
            "error: invalid config file {}: line 1: unknown field `plugin`, expected one of `plugins`, `plugin_dirs`, `tool_timeout_secs`, `allow_list`, `isolation`, `approval`, `journal`, `model`, `packs`, `undo`\n",
            config.display()
        )
    };
    let output = env.run(&["tools"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(output.stdout, "");
    assert_eq!(output.stderr, expected(&config));

    // A project's invalid config is not even read until trusted, and
    // trusting it says what is wrong.
    std::fs::remove_file(&config).unwrap();
    let config = env.write(".xcsh/config.toml", "plugin = [\"x.so\"]\n");
    assert_eq!(env.run(&["tools"], "").code, Some(0));
    let output = env.run(&["trust"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(output.stdout, "");
    assert_eq!(output.stderr, expected(&canonical(&config)));
}

#[test]
fn load_failures_are_logged_as_warnings_in_run() {
    let env = Env::new();
    let bad = crate::support::pack_path("fixture-panic-factory");
    let output = env.run(
        &[
            "run",
            "--plugin",
            arg(&bad),
            "--plugin",
            arg(&batch_rename()),
        ],
        "",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stderr,
        format!(
            "warning: Failed to load tool pack {}: factory panicked: factory exploded on purpose (at {})\n",
            bad.display(),
            xcsh_test_support::panic_site(
                "plugins/fixtures/panic-factory/src/lib.rs",
                "panic!(\"factory exploded on purpose\")"
            )
        )
    );
}
