//! xcsh's own files are held to the rules its packs are: a config file,
//! pack registry or trust record that another user could have written
//! (or whose directory they could write) is refused in one line with the
//! fix, and nothing it says is used. One that is not a regular file (a
//! FIFO, a device behind a link, a socket) or is too long is refused the
//! same way, at once: nothing hangs and nothing is changed.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{Env, Output, canonical, spawn_when_not_busy};

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

/// Runs `args`, which must end within 30 seconds (a FIFO once hung xcsh
/// until killed) and fail with exactly `error`.
fn refused_at_once(env: &Env, args: &[&str], error: &str) {
    let mut command = env.command(args);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = spawn_when_not_busy(&mut command);
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("xcsh {args:?} hung on one of its own files");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    let output = Output {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    };
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(output.stderr, format!("error: {error}\n"), "xcsh {args:?}");
    assert_eq!(output.stdout, "");
}

/// Every entry under `dir`: its path, kind and length (the length of a
/// regular file only), to show nothing was created, removed or changed.
fn tree(dir: &Path) -> Vec<(PathBuf, String, u64)> {
    let mut entries = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            let path = entry.path();
            let described = if kind.is_dir() {
                pending.push(path.clone());
                "dir"
            } else if kind.is_symlink() {
                "link"
            } else if kind.is_fifo() {
                "fifo"
            } else {
                "file"
            };
            let len = if kind.is_file() {
                fs::metadata(&path).unwrap().len()
            } else {
                0
            };
            entries.push((path, described.to_owned(), len));
        }
    }
    entries.sort();
    entries
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// What is put in place of one of xcsh's own files.
enum Bad {
    Fifo,
    DevZero,
    /// A regular file one byte over the limit (sparse: no disk is used).
    Oversized(u64),
}

impl Bad {
    fn make(&self, path: &Path) {
        match self {
            Self::Fifo => mkfifo(path),
            Self::DevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
            Self::Oversized(limit) => {
                let file = fs::File::create(path).unwrap();
                file.set_len(limit + 1).unwrap();
                chmod(path, 0o600);
            }
        }
    }

    fn why(&self) -> String {
        match self {
            Self::Fifo => "that is a named pipe, not a regular file".to_owned(),
            Self::DevZero => "that is a character device, not a regular file".to_owned(),
            Self::Oversized(limit) => format!("larger than {} MiB", limit >> 20),
        }
    }
}

/// Puts each bad kind of file at `file_name` in the user's config or data
/// directory, and shows `xcsh tools` (and `xcsh pack list` where it reads
/// the file, `pack_list_reads`) refuse it at once in one line, changing
/// nothing; where `xcsh pack list` does not read it, it answers at once.
fn each_bad_file_is_refused_at_once(
    file_name: &str,
    in_config: bool,
    what: &str,
    limit: u64,
    pack_list_reads: bool,
) {
    for bad in [Bad::Fifo, Bad::DevZero, Bad::Oversized(limit)] {
        let env = Env::new();
        let dir = if in_config {
            env.user_config_dir()
        } else {
            env.user_data_dir()
        };
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(file_name);
        bad.make(&path);
        let before = tree(env.home.path());
        let error = format!(
            "refusing {what} {}: {} (fix: remove it)",
            bad.why(),
            path.display()
        );
        refused_at_once(&env, &["tools"], &error);
        if pack_list_reads {
            refused_at_once(&env, &["pack", "list"], &error);
        } else {
            let listed = env.run(&["pack", "list"], "");
            assert_eq!(listed.code, Some(0), "{listed:?}");
        }
        // Nothing but the empty private directory, made before any pack
        // starts (while the registry is still being read).
        let private = env.user_data_dir().join("private");
        let after: Vec<_> = tree(env.home.path())
            .into_iter()
            .filter(|(path, kind, len)| !(*path == private && kind == "dir" && *len == 0))
            .collect();
        assert_eq!(after, before);
    }
}

#[test]
fn a_fifo_device_or_oversized_config_file_is_refused_at_once() {
    each_bad_file_is_refused_at_once("config.toml", true, "the config file", 1 << 20, false);
}

#[test]
fn a_fifo_device_or_oversized_pack_registry_is_refused_at_once() {
    each_bad_file_is_refused_at_once("packs.json", false, "the pack registry", 64 << 20, true);
}

#[test]
fn a_fifo_device_or_oversized_trust_file_is_refused_at_once() {
    each_bad_file_is_refused_at_once(
        "trusted-projects.json",
        false,
        "the trust file",
        16 << 20,
        false,
    );
}

#[test]
fn a_fifo_in_a_projects_config_neither_hangs_trust_nor_is_trusted() {
    let env = Env::new();
    fs::create_dir(env.work().join(".xcsh")).unwrap();
    let path = env.work().join(".xcsh/config.toml");
    mkfifo(&path);
    let before = tree(env.work());
    refused_at_once(
        &env,
        &["trust"],
        &format!(
            "refusing the project's config file that is a named pipe, not a regular file: {} (fix: remove it)",
            path.display()
        ),
    );
    assert_eq!(tree(env.work()), before);
    assert!(!env.user_data_dir().join("trusted-projects.json").exists());
}
