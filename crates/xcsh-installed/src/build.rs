//! `xcsh pack add DIR`: building a pack crate to find the library to add.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context as _;
use serde::Deserialize;

/// One line of `cargo build --message-format=json`, the fields read.
#[derive(Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    manifest_path: Option<PathBuf>,
    #[serde(default)]
    target: Option<Target>,
    #[serde(default)]
    filenames: Vec<PathBuf>,
}

#[derive(Deserialize)]
struct Target {
    crate_types: Vec<String>,
}

/// Builds the pack crate in `dir` with `cargo build --release` (cargo's
/// progress on standard error) and returns its library: the `cdylib` that
/// cargo reports for the crate in `dir` (not for its dependencies), in
/// whatever target directory cargo used (the crate's, its workspace's, or
/// `CARGO_TARGET_DIR`).
///
/// # Errors
///
/// No `Cargo.toml` in `dir`, or one that is a workspace with no package of
/// its own, cargo failed, or the crate builds no `cdylib`.
pub fn build_pack_crate(dir: &Path) -> anyhow::Result<PathBuf> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        anyhow::bail!(
            "{} is a directory without a Cargo.toml: give a pack library or a pack crate directory",
            dir.display()
        );
    }
    if is_virtual_workspace(&manifest) {
        anyhow::bail!(
            "{} is a workspace, not a crate: give the directory of the pack crate in it",
            dir.display()
        );
    }
    eprintln!("Building {} (cargo build --release)", dir.display());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .current_dir(dir)
        .args([
            "build",
            "--release",
            "--message-format=json-render-diagnostics",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot run cargo")?;
    let canonical_manifest = std::fs::canonicalize(&manifest).unwrap_or(manifest);
    let mut library = None;
    let stdout = child.stdout.take().context("cannot read cargo's output")?;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.context("cannot read cargo's output")?;
        let Ok(message) = serde_json::from_str::<Message>(&line) else {
            continue;
        };
        let is_cdylib = message
            .target
            .as_ref()
            .is_some_and(|t| t.crate_types.iter().any(|c| c == "cdylib"));
        if message.reason == "compiler-artifact"
            && is_cdylib
            && message
                .manifest_path
                .as_deref()
                .is_some_and(|m| std::fs::canonicalize(m).is_ok_and(|m| m == canonical_manifest))
        {
            let suffix = std::env::consts::DLL_SUFFIX;
            library = message
                .filenames
                .into_iter()
                .find(|f| f.to_string_lossy().ends_with(suffix))
                .or(library);
        }
    }
    let status = child.wait().context("cannot run cargo")?;
    if !status.success() {
        anyhow::bail!(
            "cargo build --release failed in {} ({status})",
            dir.display()
        );
    }
    library.with_context(|| {
        format!(
            "{} builds no library xcsh can load: its [lib] needs crate-type = [\"cdylib\"]",
            dir.display()
        )
    })
}

/// True when `manifest` is a workspace's with no `[package]` of its own
/// (cargo would build the workspace's members). A manifest that does not
/// parse is left to cargo to report.
fn is_virtual_workspace(manifest: &Path) -> bool {
    std::fs::read_to_string(manifest)
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .is_some_and(|table| table.contains_key("workspace") && !table.contains_key("package"))
}
