//! `XCSH_CONFIG_DIR`, `XCSH_DATA_DIR` and `XCSH_CACHE_DIR` name xcsh's own
//! directories: a test (or a second set of settings) keeps everything
//! there, and nothing reaches the user's usual ones.

use std::path::Path;

use crate::support::{Env, arg, batch_rename, copy_pack, write};

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path.display().to_string());
        }
    }
    found
}

#[test]
fn the_environment_names_xcsh_s_config_data_and_cache_directories() {
    let env = Env::new();
    let own = env.home.path().join("elsewhere");
    let (config, data, cache) = (own.join("config"), own.join("data"), own.join("cache"));
    let pack = copy_pack("batch-rename", &env.work().join("packs"));
    let with_dirs = |args: &[&str]| {
        let mut command = env.command(args);
        command
            .env("XCSH_CONFIG_DIR", &config)
            .env("XCSH_DATA_DIR", &data)
            .env("XCSH_CACHE_DIR", &cache);
        env.run_command(command, "")
    };
    let added = with_dirs(&["pack", "add", arg(&pack)]);
    assert_eq!(added.code, Some(0), "{added:?}");
    assert!(data.join("packs.json").is_file(), "the registry is there");
    let listed = with_dirs(&["pack", "list"]);
    assert!(listed.stdout.contains("batch-rename"), "{listed:?}");
    // An in-process pack's first-seen record goes to the cache named.
    let tools = with_dirs(&["tools", "--plugin", arg(&batch_rename())]);
    assert_eq!(tools.code, Some(0), "{tools:?}");
    assert!(!files_under(&cache.join("first-seen")).is_empty());
    // The config there is the user's: it isolates every pack.
    write(&config.join("config.toml"), "[isolation]\nall = true\n");
    let tools = with_dirs(&["tools", "--plugin", arg(&batch_rename())]);
    assert!(tools.stdout.contains(", isolated, "), "{tools:?}");
    // The usual directories under the home were never touched.
    for usual in [".config", ".local", ".cache"] {
        let left = files_under(&env.home.path().join(usual));
        assert!(left.is_empty(), "{usual}: {left:?}");
    }
    // Without the variables the registry is the usual (empty) one.
    let listed = env.run(&["pack", "list"], "");
    assert!(!listed.stdout.contains("batch-rename"), "{listed:?}");
}
