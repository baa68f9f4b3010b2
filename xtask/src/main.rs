//! Project chores, run through cargo aliases (`.cargo/config.toml`).
//!
//! `cargo demo`: builds the `xcsh` binary and the batch-rename pack into this
//! run's target directory, lays out sample files in a temporary directory,
//! and runs `xcsh run --pretty demo/rename.jsonl` there, listing the files
//! before and after.
#![forbid(unsafe_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, bail};

/// The sample files the demo script renames.
const SAMPLE_FILES: &[&str] = &["draft-intro.md", "draft-usage.md", "notes.txt"];

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("demo") => demo(),
        _ => bail!("usage: cargo demo   (xtask demo)"),
    }
}

fn demo() -> anyhow::Result<()> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask lives inside the workspace")?;
    let profile = profile_dir()?;
    println!("demo: building xcsh and the batch-rename pack");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut build = Command::new(cargo);
    build
        .current_dir(workspace)
        // Not --quiet: a fresh clone compiles for a few minutes, and cargo's
        // progress says so.
        .args(["build", "-p", "xcsh", "--bin", "xcsh", "-p", "batch-rename"])
        .arg("--target-dir")
        .arg(profile.parent().context("profile directory has a parent")?);
    if profile.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    let status = build.status().context("cannot run cargo build")?;
    if !status.success() {
        bail!("cargo build failed: {status}");
    }

    let dir = tempfile::Builder::new()
        .prefix("xcsh-demo-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    for file in SAMPLE_FILES {
        std::fs::write(dir.path().join(file), format!("# {file}\n"))
            .with_context(|| format!("cannot write sample file {file}"))?;
    }
    println!(
        "demo: in {}: {}",
        dir.path().display(),
        listing(dir.path())?
    );

    let xcsh = profile.join(format!("xcsh{}", std::env::consts::EXE_SUFFIX));
    let pack = profile.join(format!(
        "{}batch_rename{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    let script = workspace.join("demo").join("rename.jsonl");
    println!(
        "demo: $ xcsh run --pretty --plugin {} demo/rename.jsonl\n",
        relative(&pack, workspace).display()
    );
    let status = Command::new(&xcsh)
        .current_dir(dir.path())
        .args(["run", "--pretty", "--plugin"])
        .arg(&pack)
        .arg(&script)
        .env_remove("XCSH_PLUGIN_PATH")
        .status()
        .with_context(|| format!("cannot run {}", xcsh.display()))?;
    if !status.success() {
        bail!("xcsh run failed: {status}");
    }
    println!("\ndemo: files now: {}", listing(dir.path())?);
    Ok(())
}

/// The cargo profile directory this binary was built into
/// (`target/debug` for `target/debug/xtask`).
fn profile_dir() -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot find the running xtask binary")?;
    exe.parent()
        .map(Path::to_path_buf)
        .context("xtask binary has no parent directory")
}

/// The sorted file names in `dir`, space-separated.
fn listing(dir: &Path) -> anyhow::Result<String> {
    let mut names = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .map(|entry| Ok(entry?.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<Vec<String>>>()?;
    names.sort();
    Ok(names.join(" "))
}

fn relative<'a>(path: &'a Path, base: &Path) -> &'a Path {
    path.strip_prefix(base).unwrap_or(path)
}
