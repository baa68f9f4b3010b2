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
    "fixture-abi-future",
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
    "fixture-crashy",
    "fixture-load-marker",
    "fixture-load-abort",
    "fixture-sandbox-probe",
    "fixture-varying-tools",
    "fixture-conformance",
    "fixture-configured",
    "fixture-file-ops",
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
        let mut main = cargo_build(&profile, env!("CARGO_MANIFEST_DIR").as_ref());
        for pack in PACKS {
            main.args(["-p", pack]);
        }
        main.args(["-p", "xcsh-plugin-api", "--lib", "--example", EXAMPLE_PACK]);
        run(main, "the tool packs");

        // The compat workspace is separate (it holds a second, frozen
        // `xcsh-plugin-api`), but shares the target directory so shared
        // dependencies build once.
        let compat_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("compat");
        let mut compat = cargo_build(&profile, &compat_dir);
        compat.args(["--locked", "-p", COMPAT_PACK]);
        run(compat, "the compat pack");
        profile
    })
}

/// `cargo build` into the target directory, profile and target triple
/// that `profile` (`target/debug`, or `target/<triple>/release` after a
/// `--target` build) belongs to, so a nested build reuses the outer build's
/// artifacts and flags.
pub(crate) fn cargo_build(profile: &Path, workspace: &Path) -> Command {
    cargo_command(profile, workspace, "build")
}

/// `cargo {subcommand} --quiet` (`build`, `check`) with the target
/// directory, profile and target triple of `profile`, as [`cargo_build`].
pub(crate) fn cargo_command(profile: &Path, workspace: &Path, subcommand: &str) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(workspace).args([subcommand, "--quiet"]);
    let mut target_dir = profile.parent().expect("profile dir has a parent");
    // A `--target` build nests profiles under a triple directory, itself
    // inside the target directory (which cargo marks with CACHEDIR.TAG).
    let triple = target_dir
        .file_name()
        .and_then(|name| name.to_str())
        .filter(|name| name.contains('-'))
        .filter(|_| {
            target_dir
                .parent()
                .is_some_and(|p| p.join("CACHEDIR.TAG").exists())
        });
    if let Some(triple) = triple {
        command.args(["--target", triple]);
        target_dir = target_dir.parent().expect("triple dir has a parent");
    }
    command.arg("--target-dir").arg(target_dir);
    if profile.file_name().is_some_and(|name| name == "release") {
        command.arg("--release");
    }
    command
}

/// `cargo rustc` of the crate docs' example pack with `rustc_args` for
/// that crate alone (its dependencies are the ones already built): what
/// cargo printed, and whether it succeeded.
pub fn build_example_with(rustc_args: &[&str]) -> (bool, String) {
    let command = cargo_build(&profile_dir(), env!("CARGO_MANIFEST_DIR").as_ref());
    // `cargo_build` says `build --quiet`; the same target and flags, as `rustc`.
    let args: Vec<_> = command.get_args().skip(2).map(ToOwned::to_owned).collect();
    let mut rustc = Command::new(command.get_program());
    rustc
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "rustc",
            "--quiet",
            "-p",
            "xcsh-plugin-api",
            "--example",
            EXAMPLE_PACK,
        ])
        .args(args)
        .arg("--")
        .args(rustc_args);
    let output = rustc
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo rustc: {e}"));
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub(crate) fn run(mut command: Command, what: &str) {
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo to build {what}: {e}"));
    assert!(
        status.success(),
        "building {what} failed ({status}): {command:?}"
    );
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

/// The C and C++ packs of `plugins/c-packs` the tests load: the library's
/// stem and its sources (the first names the language).
const C_PACKS: &[(&str, &[&str])] = &[
    ("batch_rename_c", &["batch_rename.c", "json.c"]),
    ("batch_rename_cxx", &["batch_rename.cpp", "json.c"]),
    ("crashy_c", &["crashy.c"]),
];

/// Builds the C or C++ pack `stem` (one of [`C_PACKS`]) once per test
/// process with the system's compilers (`CC`, default `cc`; `CXX`, default
/// `c++`), as `docs/c-packs.md` tells authors to: `-shared -fPIC`, the
/// header from `crates/xcsh-c-abi/include`. Panics saying which compiler
/// is missing and how to install it.
pub fn c_pack_path(stem: &str) -> PathBuf {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static BUILT: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    let (_, sources) = C_PACKS
        .iter()
        .find(|(name, _)| *name == stem)
        .unwrap_or_else(|| panic!("{stem} is not in C_PACKS"));
    let mut built = BUILT.get_or_init(Default::default).lock().unwrap();
    if let Some(path) = built.get(stem) {
        return path.clone();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let dir = profile_dir().join("c-packs");
    std::fs::create_dir_all(&dir).unwrap();
    let output = dir.join(pack_file_name(stem));
    let building = dir.join(format!("{}.{}", pack_file_name(stem), std::process::id()));
    let object = |source: &str, compiler: &str, flags: &[&str]| {
        let object = dir.join(format!("{stem}-{source}.{}.o", std::process::id()));
        let mut command = Command::new(compiler);
        command
            .args(flags)
            .args(["-c", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(root.join("crates/xcsh-c-abi/include"))
            .arg(root.join("plugins/c-packs").join(source))
            .arg("-o")
            .arg(&object);
        compile(command, compiler, source);
        object
    };
    let cxx = sources[0].ends_with(".cpp");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let cplusplus = std::env::var("CXX").unwrap_or_else(|_| "c++".to_owned());
    let objects: Vec<PathBuf> = sources
        .iter()
        .map(|source| {
            if source.ends_with(".cpp") {
                object(source, &cplusplus, &["-std=c++17"])
            } else {
                object(source, &cc, &["-std=c11"])
            }
        })
        .collect();
    let linker = if cxx { &cplusplus } else { &cc };
    let mut link = Command::new(linker);
    link.arg("-shared").args(&objects).arg("-o").arg(&building);
    compile(link, linker, stem);
    for object in objects {
        std::fs::remove_file(object).ok();
    }
    std::fs::rename(&building, &output).unwrap();
    built.insert(stem.to_owned(), output.clone());
    output
}

/// Runs a compiler, panicking with what to install when it is missing and
/// with its messages when it fails.
fn compile(mut command: Command, compiler: &str, what: &str) {
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "cannot run {compiler} to build {what} ({e}): the C and C++ packs need a C and a C++ \
             compiler; install them (Debian: apt-get install gcc g++) or name them in CC and CXX"
        )
    });
    assert!(
        output.status.success(),
        "{compiler} failed building {what}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
