//! The official MCP Python SDK for the `xcsh mcp` end-to-end tests, in a
//! virtual environment the tests create on first use.
//!
//! The SDK is a client this project does not implement, so the tests drive
//! `xcsh mcp` with it. Nothing is installed by hand: the first test that
//! needs it creates `<target>/mcp-python-sdk-<version>/` with
//! `python3 -m venv` and installs the pinned release from PyPI into it;
//! later runs reuse it. `XCSH_TEST_PYTHON` names an interpreter that already
//! has the SDK, and skips provisioning.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::build::profile_dir;

/// The SDK release the tests are written against.
pub const MCP_SDK: &str = "mcp==2.3.0";

/// The oldest Python the SDK supports.
const MIN_PYTHON: (u32, u32) = (3, 10);

/// An interpreter with the official MCP Python SDK, provisioned once per
/// test process (and once per target directory).
///
/// # Panics
///
/// With one line naming the step that failed (no Python, too old a Python,
/// no `venv` module, the install from PyPI), since the tests cannot run
/// without the SDK and must never silently skip.
pub fn mcp_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| match std::env::var_os("XCSH_TEST_PYTHON") {
        Some(python) => PathBuf::from(python),
        None => provision().unwrap_or_else(|error| {
            panic!(
                "cannot provision the MCP Python SDK ({MCP_SDK}) for the xcsh mcp tests: {error}"
            )
        }),
    })
}

/// The environment's interpreter, creating the environment first if no
/// complete one exists.
fn provision() -> Result<PathBuf, String> {
    let target = profile_dir()
        .parent()
        .map(Path::to_path_buf)
        .ok_or("the test binary's profile directory has no parent")?;
    let version = MCP_SDK.trim_start_matches("mcp==");
    let venv = target.join(format!("mcp-python-sdk-{version}"));
    if venv_python(&venv).is_file() {
        return Ok(venv_python(&venv));
    }
    // Built beside the final name and renamed into place, so a run that was
    // interrupted, or another test process doing the same, never leaves a
    // half-installed environment behind the final name.
    let staging = target.join(format!(
        "mcp-python-sdk-{version}.partial-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&staging);
    let base = base_python()?;
    run(
        Command::new(&base).args(["-m", "venv"]).arg(&staging),
        &format!("{} -m venv", base.display()),
    )?;
    run(
        Command::new(venv_python(&staging)).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            MCP_SDK,
        ]),
        &format!("pip install '{MCP_SDK}' (needs access to PyPI)"),
    )?;
    match std::fs::rename(&staging, &venv) {
        Ok(()) => {}
        // Another test process finished first; use its environment.
        Err(_) if venv_python(&venv).is_file() => {
            let _ = std::fs::remove_dir_all(&staging);
        }
        Err(error) => {
            return Err(format!(
                "cannot move {} to {}: {error}",
                staging.display(),
                venv.display()
            ));
        }
    }
    Ok(venv_python(&venv))
}

/// The first `python3` (or `python`) on `PATH` that is new enough.
fn base_python() -> Result<PathBuf, String> {
    let mut seen = Vec::new();
    for name in ["python3", "python"] {
        let Ok(output) = Command::new(name)
            .args([
                "-c",
                "import sys; print(sys.version_info[0], sys.version_info[1])",
            ])
            .output()
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&output.stdout);
        let mut parts = text.split_whitespace().map(str::parse::<u32>);
        if let (Some(Ok(major)), Some(Ok(minor))) = (parts.next(), parts.next()) {
            if (major, minor) >= MIN_PYTHON {
                return Ok(PathBuf::from(name));
            }
            seen.push(format!("{name} is {major}.{minor}"));
        }
    }
    let (major, minor) = MIN_PYTHON;
    if seen.is_empty() {
        Err(format!(
            "no python3 on PATH; install Python {major}.{minor} or newer"
        ))
    } else {
        Err(format!(
            "{}; install Python {major}.{minor} or newer",
            seen.join(", ")
        ))
    }
}

/// Runs one provisioning step; its error is the step and the last line
/// the tool wrote.
fn run(command: &mut Command, step: &str) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|error| format!("{step} could not start: {error}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{step} failed ({}): {}",
            output.status,
            last_line(&output)
        ))
    }
}

fn last_line(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    stderr
        .lines()
        .chain(stdout.lines())
        .rfind(|line| !line.trim().is_empty())
        .unwrap_or("no output")
        .trim()
        .to_owned()
}

/// The interpreter inside a virtual environment.
fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    }
}
