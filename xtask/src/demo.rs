//! `cargo demo`: build what the demo runs, run the scripted session, and
//! fail unless it ends as docs/usage.md ("The demo") shows.

mod check;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, bail};

pub use check::{Outcome, check, redirected_journal};

/// The sample files the demo script renames.
const SAMPLE_FILES: &[&str] = &["draft-intro.md", "draft-usage.md", "notes.txt"];

/// The files left when the script has applied one rename and discarded the
/// other.
pub const EXPECTED_FILES: &[&str] = &["final-intro.md", "final-usage.md", "notes.txt"];

/// Builds `xcsh` and the batch-rename pack, runs `demo/rename.jsonl` over
/// sample files in a temporary directory, and checks the outcome.
///
/// # Errors
///
/// The build fails, the session cannot run, or it does not end as expected.
pub fn run() -> anyhow::Result<()> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask lives inside the workspace")?;
    let profile = profile_dir()?;
    build(workspace, &profile)?;

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
        listing(dir.path())?.join(" ")
    );

    let xcsh = profile.join(format!("xcsh{}", std::env::consts::EXE_SUFFIX));
    let pack = profile.join(format!(
        "{}batch_rename{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    let script = workspace.join("demo").join("rename.jsonl");
    let calls = check::count_calls(
        &std::fs::read_to_string(&script)
            .with_context(|| format!("cannot read {}", script.display()))?,
    );
    println!(
        "demo: $ xcsh run --pretty --plugin {} demo/rename.jsonl\n",
        relative(&pack, workspace).display()
    );
    // Captured rather than inherited, so the demo can check what the session
    // said; it is short, and printed in full before the verdict.
    let output = Command::new(&xcsh)
        .current_dir(dir.path())
        .args(["run", "--pretty", "--plugin"])
        .arg(&pack)
        .arg(&script)
        .env_remove("XCSH_PLUGIN_PATH")
        .env_remove("RUST_LOG")
        .output()
        .with_context(|| format!("cannot run {}", xcsh.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    print!("{stdout}");
    eprint!("{stderr}");
    let files = listing(dir.path())?;
    println!("\ndemo: files now: {}", files.join(" "));
    // The demo's directory is fresh, so not trusted: its journal is kept in
    // the user's data directory, as the session said.
    let journal = redirected_journal(&stderr)
        .unwrap_or_else(|| dir.path().join(".xcsh").join("journal.jsonl"));
    if let Ok(text) = std::fs::read_to_string(&journal) {
        println!(
            "demo: the session's journal, {}, holds {} entries (xcsh journal prints them)",
            journal.display(),
            text.lines().count()
        );
    }
    verify_journal(&xcsh, dir.path())?;
    check(&Outcome {
        status: output.status,
        stdout: &stdout,
        stderr: &stderr,
        calls,
        files: &files,
    })
}

/// `xcsh journal --verify` in `dir`: the session's journal must chain
/// from its first entry to its last.
fn verify_journal(xcsh: &Path, dir: &Path) -> anyhow::Result<()> {
    let output = Command::new(xcsh)
        .current_dir(dir)
        .args(["journal", "--verify"])
        .output()
        .with_context(|| format!("cannot run {}", xcsh.display()))?;
    if !output.status.success() {
        bail!(
            "the session's journal does not verify: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    println!("demo: $ xcsh journal --verify: every entry chains to the one before");
    Ok(())
}

/// `cargo build` of the agent and the pack, into the target directory and
/// profile this xtask was built for.
fn build(workspace: &Path, profile: &Path) -> anyhow::Result<()> {
    println!("demo: building xcsh and the batch-rename pack");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut build = Command::new(cargo);
    build
        .current_dir(workspace)
        // No `--bin`: it filters the targets of every selected package, and
        // would skip the pack's `cdylib`. Not --quiet: a fresh clone
        // compiles for a few minutes, and cargo's progress says so.
        .args(["build", "-p", "xcsh", "-p", "batch-rename"])
        .arg("--target-dir")
        .arg(profile.parent().context("profile directory has a parent")?);
    if profile.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    let status = build.status().context("cannot run cargo build")?;
    if !status.success() {
        bail!("cargo build failed: {status}");
    }
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

/// The sorted names of the visible files in `dir`: not `.xcsh/`, where
/// the agent keeps its journal of the session.
fn listing(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut names = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .map(|entry| Ok(entry?.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<Vec<String>>>()?;
    names.retain(|name| !name.starts_with('.'));
    names.sort();
    Ok(names)
}

fn relative<'a>(path: &'a Path, base: &Path) -> &'a Path {
    path.strip_prefix(base).unwrap_or(path)
}
