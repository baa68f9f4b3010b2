//! xcsh's own files are held to the rules its packs are: a config file,
//! pack registry or trust record that another user could have written
//! (or whose directory they could write) is refused in one line with the
//! fix, and nothing it says is used.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use crate::support::{Env, canonical};

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs `args`, which must fail with exactly `error`.
fn refused(env: &Env, args: &[&str], error: &str) {
    let output = env.run(args, "");
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(output.stderr, format!("error: {error}\n"));
}

#[test]
fn a_config_file_others_can_write_is_refused() {
    let env = Env::new();
    let dir = env.user_config_dir();
    fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    fs::write(&config, "[isolation]\nrequire_sandbox = false\n").unwrap();
    chmod(&config, 0o666);
    let path = canonical(&config).display().to_string();
    let error =
        format!("refusing the config file writable by other users: {path} (fix: chmod o-w {path})");
    refused(&env, &["tools"], &error);
    refused(&env, &["run"], &error);
    refused(&env, &["journal"], &error);

    chmod(&config, 0o644);
    chmod(&dir, 0o775);
    let dir = canonical(&dir).display().to_string();
    refused(
        &env,
        &["tools"],
        &format!("refusing the config file writable by its group: {dir} (fix: chmod g-w {dir})"),
    );
}

#[test]
fn a_pack_registry_or_trust_record_others_can_write_is_refused() {
    let env = Env::new();
    let data = env.user_data_dir();
    fs::create_dir_all(&data).unwrap();
    let registry = data.join("packs.json");
    fs::write(&registry, "{\"version\": 1, \"packs\": {}}\n").unwrap();
    chmod(&registry, 0o646);
    let path = canonical(&registry).display().to_string();
    let error = format!(
        "refusing the pack registry writable by other users: {path} (fix: chmod o-w {path})"
    );
    refused(&env, &["pack", "list"], &error);
    refused(&env, &["tools"], &error);
    chmod(&registry, 0o600);
    assert_eq!(env.run(&["pack", "list"], "").code, Some(0));

    let trust = data.join("trusted-projects.json");
    fs::write(&trust, "{\"version\": 1, \"projects\": {}}\n").unwrap();
    chmod(&trust, 0o664);
    let path = canonical(&trust).display().to_string();
    let error =
        format!("refusing the trust file writable by its group: {path} (fix: chmod g-w {path})");
    refused(&env, &["trust", "--list"], &error);
    refused(&env, &["tools"], &error);
}
