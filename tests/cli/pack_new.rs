//! `xcsh pack new`: the crate it writes passes its own tests and builds a
//! library `xcsh tools` loads. Builds share this workspace's target
//! directory, so the dependencies compiled for the workspace are reused.

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;
use xcsh_loader::discover::pack_file_name;

use crate::support::{Env, arg, target_dir};

/// `cargo ARGS` in `dir`, which must succeed.
fn cargo(dir: &Path, args: &[&str]) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "cargo {args:?} failed in {}:\n{}\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_new_pack_passes_its_tests_and_builds_a_library_xcsh_loads() {
    let env = Env::new();
    let crate_dir = TempDir::new().unwrap();
    let created = env.run(&["pack", "new", "demo-pack", arg(crate_dir.path())], "");
    assert_eq!(created.code, Some(0), "{created:?}");
    let library = target_dir().join("debug").join(pack_file_name("demo-pack"));
    assert_eq!(
        created.stdout,
        format!(
            "Created tool pack demo-pack in {}: test it with `cargo test`, build it with `cargo build --release`, then `xcsh tools --plugin {}`\n",
            crate_dir.path().display(),
            crate_dir
                .path()
                .join("target/release")
                .join(pack_file_name("demo-pack"))
                .display()
        )
    );
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "src/lib.rs",
        "tests/append.rs",
    ] {
        assert!(crate_dir.path().join(file).is_file(), "{file}");
    }

    // The SDK by path, relative to the new crate: never this checkout's
    // absolute path, in any file it wrote (the manifest, the README, the
    // copied Cargo.lock, the sources).
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let written = files_under(crate_dir.path());
    assert_eq!(
        written,
        [
            ".gitignore",
            "Cargo.lock",
            "Cargo.toml",
            "README.md",
            "src/append.rs",
            "src/lib.rs",
            "tests/append.rs"
        ]
    );
    assert_no_absolute_path_to(crate_dir.path(), &repo);
    let manifest = std::fs::read_to_string(crate_dir.path().join("Cargo.toml")).unwrap();
    let api = relative_to(crate_dir.path(), &repo.join("crates/xcsh-plugin-api"));
    assert!(
        manifest.contains(&format!("xcsh-plugin-api = {{ path = \"{api}\" }}\n")),
        "{manifest}"
    );

    cargo(crate_dir.path(), &["test"]);
    cargo(crate_dir.path(), &["build"]);

    let listed = env.run(&["tools", "--strict", "--plugin", arg(&library)], "");
    assert_eq!(listed.code, Some(0), "{listed:?}");
    assert!(
        listed.stdout.lines().any(|line| line
            .trim_start()
            .starts_with("demo_pack_append_preview  Append Line  model  demo-pack 0.1.0")),
        "{}",
        listed.stdout
    );
}

#[test]
fn a_directory_with_files_in_it_is_refused() {
    let env = Env::new();
    env.write("taken/keep.txt", "mine");
    let output = env.run(&["pack", "new", "demo-pack", "taken"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        "error: taken is not empty: choose a new directory\n"
    );
}

/// No file under `dir` names `repo` by its absolute path (a path that
/// starts a token, not a substring of a relative one).
fn assert_no_absolute_path_to(dir: &Path, repo: &Path) {
    let absolute = repo.to_str().unwrap();
    for file in files_under(dir) {
        let text = std::fs::read_to_string(dir.join(&file)).unwrap();
        let starts_a_token = text.starts_with(absolute)
            || ['"', '\'', '`', ' ', '\n', '(', '=']
                .iter()
                .any(|before| text.contains(&format!("{before}{absolute}")));
        assert!(
            !starts_a_token,
            "{file} names the checkout by its absolute path: {text}"
        );
    }
}

/// The files under `dir`, relative to it, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(next) = dirs.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                files.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files
}

/// `to` as the relative path `xcsh pack new` writes from `from`.
fn relative_to(from: &Path, to: &Path) -> String {
    let from = from.canonicalize().unwrap();
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let up = from.components().count() - common;
    let mut parts: Vec<String> = vec!["..".to_owned(); up];
    parts.extend(
        to.components()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// A pack whose SDK is a clone elsewhere gets paths relative to itself;
/// one whose SDK is a version gets the requirement, for the crates on a
/// registry. (Neither is built here: the first test builds one.)
#[test]
fn sdk_chooses_a_clone_by_relative_path_or_a_version_requirement() {
    let env = Env::new();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let dir = TempDir::new().unwrap();
    let by_path = dir.path().join("by-path");
    let output = env.run(
        &[
            "pack",
            "new",
            "demo-pack",
            arg(&by_path),
            "--sdk",
            arg(&repo),
        ],
        "",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let manifest = std::fs::read_to_string(by_path.join("Cargo.toml")).unwrap();
    let harness = relative_to(&by_path, &repo.join("crates/xcsh-pack-test"));
    assert!(
        manifest.contains(&format!("xcsh-pack-test = {{ path = \"{harness}\" }}\n")),
        "{manifest}"
    );
    assert!(by_path.join("Cargo.lock").is_file());
    assert_no_absolute_path_to(&by_path, &repo);

    let by_version = dir.path().join("by-version");
    let output = env.run(
        &["pack", "new", "demo-pack", arg(&by_version), "--sdk", "1.4"],
        "",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let manifest = std::fs::read_to_string(by_version.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("xcsh-plugin-api = \"1.4\"\n"),
        "{manifest}"
    );
    assert!(!by_version.join("Cargo.lock").exists());

    let output = env.run(
        &[
            "pack",
            "new",
            "demo-pack",
            arg(&dir.path().join("x")),
            "--sdk",
            "no/such/clone",
        ],
        "",
    );
    assert_eq!(output.code, Some(1));
    assert!(
        output.stderr.starts_with(
            "error: cannot find the xcsh-plugin-api crate in no/such/clone: --sdk takes a clone of the xcsh repository (or its crates/xcsh-plugin-api) or a version such as "
        ),
        "{output:?}"
    );
}
