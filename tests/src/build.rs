//! Building the packs the tests load, once per test process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use xcsh_loader::discover::pack_file_name;

/// Every pack crate the tests load.
pub const PACKS: &[&str] = &[
    "batch-rename",
    "fixture-panic-factory",
    "fixture-faulty-tools",
    "fixture-abi-v2",
    "fixture-layout-mismatch",
    "fixture-not-a-pack",
    "fixture-conflict-a",
    "fixture-conflict-b",
    "fixture-hostile",
    "fixture-panic-label",
    "fixture-panic-schema",
    "fixture-no-tools",
    "fixture-bad-schema",
    "fixture-raw-abi",
];

/// The crate docs' example pack (an example target of `xcsh-plugin-api`).
const EXAMPLE_PACK: &str = "add_prefix_pack";

/// The pack built against the frozen first API release (`tests/compat`).
const COMPAT_PACK: &str = "compat-pack-v1";

/// The cargo profile directory the running test binary was built into
/// (`target/debug` for `target/debug/deps/packs-…`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    exe.parent()
        .and_then(Path::parent)
        .expect("test binary lives in <target>/<profile>/deps")
        .to_path_buf()
}

/// Builds every pack (and the example pack) once, into this test run's
/// target directory and profile. Panics with cargo's exit status if the
/// build fails.
fn build_all() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let profile = profile_dir();
        let target_dir = profile.parent().expect("profile dir has a parent");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("build")
            .arg("--quiet")
            .arg("--target-dir")
            .arg(target_dir);
        for pack in PACKS {
            command.args(["-p", pack]);
        }
        command.args(["-p", "xcsh-plugin-api", "--lib", "--example", EXAMPLE_PACK]);
        if profile.file_name().is_some_and(|n| n == "release") {
            command.arg("--release");
        }
        let status = command.status().expect("run cargo build for the packs");
        assert!(status.success(), "building the tool packs failed: {status}");

        // The compat workspace is separate (it holds a second, frozen
        // `xcsh-plugin-api`), but shares the target directory so shared
        // dependencies build once.
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut compat = Command::new(cargo);
        compat
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("compat"))
            .args([
                "build",
                "--quiet",
                "--locked",
                "-p",
                COMPAT_PACK,
                "--target-dir",
            ])
            .arg(target_dir);
        if profile.file_name().is_some_and(|n| n == "release") {
            compat.arg("--release");
        }
        let status = compat
            .status()
            .expect("run cargo build for the compat pack");
        assert!(
            status.success(),
            "building the compat pack failed: {status}"
        );
        profile
    })
}

/// The built library of pack crate `name` (one of [`PACKS`]).
pub fn pack_path(name: &str) -> PathBuf {
    assert!(PACKS.contains(&name), "{name} is not in PACKS");
    build_all().join(pack_file_name(name))
}

/// The built library of the pack built against the frozen first API
/// release.
pub fn compat_pack_path() -> PathBuf {
    build_all().join(pack_file_name(COMPAT_PACK))
}

/// The built library of the crate docs' example pack.
pub fn example_pack_path() -> PathBuf {
    build_all()
        .join("examples")
        .join(pack_file_name(EXAMPLE_PACK))
}
