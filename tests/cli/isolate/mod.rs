//! Isolated packs: each in a process of its own (`xcsh pack-host`), driven
//! through the agent library with this build's `xcsh` as the pack host, and
//! end to end through `xcsh run`, `xcsh tools` and `xcsh mcp`.

mod as_user;
mod attribution;
mod c_packs;
mod cli;
mod crashes;
mod fallback;
mod file_state;
mod handover;
mod hostile;
mod namespaces;
mod no_user_namespaces;
mod overrun;
mod parity;
mod reach;
mod reach_as_user;
mod records;
mod sandbox;
mod seccomp;
mod secrets;
mod start_records;
mod status;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;
use xcsh_agent::Agent;
use xcsh_core::{ToolCall, ToolResult};
use xcsh_isolate::{IsolationPolicy, PackIsolation};
use xcsh_sources::{Discovery, RunPolicy};

use crate::support::{XCSH, pack_path};

/// How a test session runs its packs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    InProcess,
    Isolated,
}

/// A session over real packs, in a temporary working directory.
pub struct TestAgent {
    pub agent: Agent,
    pub dir: TempDir,
}

/// Options of a test session.
pub struct Options {
    pub mode: Mode,
    pub timeout: Option<Duration>,
    pub packs: Vec<(PathBuf, PackIsolation)>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            mode: Mode::Isolated,
            timeout: Some(Duration::from_secs(30)),
            packs: Vec::new(),
        }
    }
}

impl TestAgent {
    /// `packs` (crate names) in a directory holding `files`.
    pub fn new(packs: &[&str], files: &[&str], options: Options) -> Self {
        let dir = TempDir::new().unwrap();
        for file in files {
            fs::write(dir.path().join(file), format!("contents of {file}")).unwrap();
        }
        Self::in_dir(dir, packs, options)
    }

    pub fn in_dir(dir: TempDir, packs: &[&str], options: Options) -> Self {
        let policy = RunPolicy {
            tool_timeout: options.timeout,
            isolation: IsolationPolicy {
                all: options.mode == Mode::Isolated,
                packs: options
                    .packs
                    .into_iter()
                    .map(|(path, pack)| (fs::canonicalize(path).unwrap(), pack))
                    .collect(),
                host_exe: Some(XCSH.into()),
                ..IsolationPolicy::default()
            },
            ..RunPolicy::default()
        };
        let discovery = Discovery {
            packs: packs.iter().map(|name| library(name)).collect(),
            from_project: Vec::new(),
            warnings: Vec::new(),
        };
        let agent = Agent::start(dir.path(), discovery, &policy).unwrap();
        assert!(agent.report.is_clean(), "{:?}", agent.problems());
        assert_eq!(
            agent.isolated.len(),
            if options.mode == Mode::Isolated {
                packs.len()
            } else {
                0
            }
        );
        Self { agent, dir }
    }

    pub fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.agent
            .session
            .execute(&ToolCall::new("call-1", tool, arguments))
    }

    pub fn resolve(&self, action: &str, reason: &str) -> ToolResult {
        self.call("resolve", json!({"action": action, "reason": reason}))
    }

    pub fn pending(&self) -> Vec<String> {
        self.agent
            .session
            .store()
            .views()
            .into_iter()
            .map(|view| view.label)
            .collect()
    }

    pub fn files(&self) -> Vec<String> {
        files(self.dir.path())
    }

    /// A batch-rename preview adding `suffix` to `files`.
    pub fn preview_suffix(&self, files: &[&str], suffix: &str) -> ToolResult {
        self.call(
            "batch_rename_preview",
            json!({"files": files, "rule": {"kind": "suffix", "suffix": suffix}}),
        )
    }
}

/// The library of a pack crate, or of a C or C++ pack named `c:STEM`
/// (built from `plugins/c-packs`).
pub fn library(name: &str) -> PathBuf {
    match name.strip_prefix("c:") {
        Some(stem) => crate::support::c_pack_path(stem),
        None => pack_path(name),
    }
}

/// The names in `dir`, but for the empty `.git` and `.xcsh` an isolated
/// pack's sandbox needs while it runs (removed when it ends).
pub fn files(dir: &Path) -> Vec<String> {
    let placeholder = |path: &Path| {
        [".git", ".xcsh"]
            .map(std::ffi::OsStr::new)
            .contains(&path.file_name().unwrap())
            && fs::read_dir(path).is_ok_and(|mut d| d.next().is_none())
    };
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| !placeholder(path))
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// An entry of `[isolation.packs]`.
pub fn entry(
    memory_limit_mb: Option<u64>,
    capabilities: Vec<xcsh_isolate::Capability>,
) -> PackIsolation {
    PackIsolation {
        isolate: true,
        capabilities,
        memory_limit_mb,
        env: Vec::new(),
    }
}
