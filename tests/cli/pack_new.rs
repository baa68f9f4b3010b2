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
