//! `xcsh pack add DIR`: a pack crate is built with `cargo build --release`
//! and the library cargo reports for that crate is added, wherever its
//! target directory is.

use std::fs;
use std::path::Path;
use std::process::Command;

use tempfile::TempDir;
use xcsh_loader::discover::pack_file_name;

use crate::support::{Env, Output, arg, canonical, target_dir, write};

use super::{ok, results};

/// `xcsh pack add DIR` with cargo's target directory left to the crate
/// (or its workspace) unless `target` says where.
fn add_dir(env: &Env, dir: &Path, target: Option<&Path>) -> Output {
    let mut command: Command = env.command(&["pack", "add", arg(dir)]);
    command
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .env_remove("RUSTFLAGS");
    if let Some(target) = target {
        command.env("CARGO_TARGET_DIR", target);
    }
    env.run_command(command, "")
}

/// A crate `name` in `dir` with `[lib]` lines `lib` and `src/lib.rs`
/// `source`, its own workspace unless `member`.
fn plain_crate(dir: &Path, name: &str, lib: &str, source: &str, member: bool) {
    let workspace = if member { "" } else { "\n[workspace]\n" };
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\n{lib}\n{workspace}"
        ),
    );
    write(&dir.join("src/lib.rs"), source);
}

/// The first line `xcsh pack add DIR` prints on standard error; cargo's
/// progress follows.
fn building(dir: &Path) -> String {
    format!("Building {} (cargo build --release)\n", dir.display())
}

/// `add DIR` failed after it said it was building `dir`, and its last
/// line is `error_line`.
fn refused_after_building(output: &Output, dir: &Path, error_line: &str) {
    assert_eq!(output.code, Some(1), "{output:?}");
    assert!(
        output.stderr.starts_with(&building(dir)),
        "{}",
        output.stderr
    );
    assert!(
        output.stderr.ends_with(&format!("\n{error_line}\n")),
        "{}",
        output.stderr
    );
}

#[test]
fn a_new_pack_crate_is_built_added_and_its_tool_called() {
    let env = Env::new();
    let crate_dir = TempDir::new().unwrap();
    ok(env.run(&["pack", "new", "demo-pack", arg(crate_dir.path())], ""));
    // The workspace's target directory: the dependencies compiled there
    // in release (`cargo bench --no-run`) are reused.
    let output = add_dir(&env, crate_dir.path(), Some(&target_dir()));
    assert_eq!(output.code, Some(0), "{output:?}");
    assert!(
        output.stderr.starts_with(&building(crate_dir.path())),
        "{}",
        output.stderr
    );
    let library = canonical(
        &target_dir()
            .join("release")
            .join(pack_file_name("demo-pack")),
    );
    assert_eq!(
        output.stdout,
        format!(
            "Added pack demo-pack 0.1.0 ({}): demo_pack_append_preview\n",
            library.display()
        )
    );

    env.write("notes.txt", "first\n");
    let calls = concat!(
        "{\"tool\": \"demo_pack_append_preview\", \"arguments\": {\"file\": \"notes.txt\", \"line\": \"second\"}}\n",
        "{\"tool\": \"resolve\", \"arguments\": {\"action\": \"apply\", \"reason\": \"asked\"}}\n",
    );
    let output = ok(env.run(&["run"], calls));
    assert_eq!(
        results(&output),
        [
            (false, "Would append to notes.txt:\n+ second".to_owned()),
            (false, "Appended 1 line to notes.txt.".to_owned())
        ]
    );
    assert_eq!(
        fs::read_to_string(env.work().join("notes.txt")).unwrap(),
        "first\nsecond\n"
    );
}

#[test]
fn a_crate_in_a_workspace_gives_its_own_library_from_the_workspace_target() {
    let env = Env::new();
    let ws = env.work().join("ws");
    write(
        &ws.join("Cargo.toml"),
        "[workspace]\nmembers = [\"first\", \"second\"]\nresolver = \"2\"\n",
    );
    // `second` depends on `first`, whose cdylib cargo builds (and reports)
    // too: only the crate in DIR is the one to add.
    plain_crate(
        &ws.join("first"),
        "first-lib",
        "crate-type = [\"cdylib\", \"rlib\"]",
        "/// A function.\npub fn one() -> i32 {\n    1\n}\n",
        true,
    );
    plain_crate(
        &ws.join("second"),
        "second-lib",
        "crate-type = [\"cdylib\"]",
        "/// A function.\npub fn two() -> i32 {\n    first_lib::one() + 1\n}\n",
        true,
    );
    fs::write(
        ws.join("second/Cargo.toml"),
        fs::read_to_string(ws.join("second/Cargo.toml")).unwrap()
            + "[dependencies]\nfirst-lib = { path = \"../first\" }\n",
    )
    .unwrap();

    let output = add_dir(&env, &ws.join("second"), None);
    let library = canonical(&ws)
        .join("target/release")
        .join(pack_file_name("second-lib"));
    // Built and found; then checked, as any library is.
    refused_after_building(
        &output,
        &ws.join("second"),
        &format!(
            "error: cannot add {}: not an xcsh tool pack: no root module (symbol _1as_0lib_1header_0root_bmodule_bloader); add xcsh_plugin_api::export_tool_pack!(your_factory); to the crate's src/lib.rs and rebuild it",
            library.display()
        ),
    );

    let output = add_dir(&env, &ws, None);
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(
        output.stderr,
        format!(
            "error: {} is a workspace, not a crate: give the directory of the pack crate in it\n",
            ws.display()
        )
    );
}

#[test]
fn a_crate_without_a_cdylib_or_that_fails_to_build_is_refused() {
    let env = Env::new();
    let rlib = env.work().join("rlib");
    plain_crate(
        &rlib,
        "rlib-only",
        "",
        "/// A function.\npub fn one() -> i32 {\n    1\n}\n",
        false,
    );
    let output = add_dir(&env, &rlib, None);
    refused_after_building(
        &output,
        &rlib,
        &format!(
            "error: {} builds no library xcsh can load: its [lib] needs crate-type = [\"cdylib\"]",
            rlib.display()
        ),
    );

    let broken = env.work().join("broken");
    plain_crate(
        &broken,
        "broken",
        "crate-type = [\"cdylib\"]",
        "compile_error!(\"broken on purpose\");\n",
        false,
    );
    let output = add_dir(&env, &broken, None);
    refused_after_building(
        &output,
        &broken,
        &format!(
            "error: cargo build --release failed in {} (exit status: 101)",
            broken.display()
        ),
    );
    assert!(
        output.stderr.contains("broken on purpose"),
        "cargo's diagnostics are shown: {}",
        output.stderr
    );
    assert!(!env.user_data_dir().join("packs.json").exists());
}
