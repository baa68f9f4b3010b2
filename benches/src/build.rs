//! Building what the benchmarks load, once per benchmark process, with the
//! same cargo, target directory and profile as the benchmark itself.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use xcsh_loader::discover::pack_file_name;

/// The benchmark fixture pack crate.
pub const BENCH_PACK: &str = "xcsh-bench-pack";

/// The cargo profile directory the running benchmark was built into
/// (`target/release` for `target/release/deps/load-…`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("benchmark binary path");
    let dir = exe.parent().expect("benchmark binary has a directory");
    // Benchmarks run from `<profile>/deps`, helper binaries from `<profile>`.
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.parent().expect("deps has a parent").to_path_buf()
    } else {
        dir.to_path_buf()
    }
}

/// The cargo target directory (the profile directory's parent).
pub fn target_dir() -> PathBuf {
    profile_dir()
        .parent()
        .expect("profile directory has a parent")
        .to_path_buf()
}

/// Runs `cargo build` for `args` into this run's target directory and
/// profile; true if it succeeded.
fn cargo_build(args: &[&str]) -> bool {
    let profile = profile_dir();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "--quiet", "--target-dir"])
        .arg(target_dir())
        .args(args);
    if profile.file_name().is_some_and(|n| n == "release") {
        command.arg("--release");
    }
    command.status().is_ok_and(|status| status.success())
}

/// The built library of the benchmark pack, built on first use.
///
/// # Panics
///
/// If the pack does not build.
pub fn bench_pack_path() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        assert!(
            cargo_build(&["-p", BENCH_PACK, "--lib"]),
            "building {BENCH_PACK} failed"
        );
        profile_dir().join(pack_file_name(BENCH_PACK))
    })
}

/// The `xcsh` agent binary, built on first use; `None` if it does not
/// build (or the workspace has no such binary yet).
pub fn xcsh_binary() -> Option<PathBuf> {
    let binary = profile_dir().join(format!("xcsh{}", std::env::consts::EXE_SUFFIX));
    (cargo_build(&["-p", "xcsh", "--bin", "xcsh"]) && binary.is_file()).then_some(binary)
}
