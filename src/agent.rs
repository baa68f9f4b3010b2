//! Starting a session: built-in tools first, then the tool packs.
//!
//! Every front end (`tools`, `run`, `repl`, and later an MCP server) starts
//! its session here, so they all see the same tools in the same order.

use std::path::{Path, PathBuf};

use xcsh_core::{RESOLVE_TOOL_NAME, RegistryError, Session};
use xcsh_loader::{LoadReport, LoadedPack, load_packs};

use crate::sources::{Discovery, SourceWarning};

/// A session in `cwd` with the built-in tools registered, then the packs at
/// `packs` loaded (so built-ins win name conflicts, then the first pack).
///
/// # Errors
///
/// Registering a built-in failed, which a fresh session never does.
pub fn start_session(
    cwd: &Path,
    packs: &[PathBuf],
) -> Result<(Session, LoadReport), RegistryError> {
    let session = Session::new(cwd);
    xcsh_ast_edit::register_builtins(&session)?;
    let report = load_packs(&session, packs);
    Ok((session, report))
}

/// Where a registered tool comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolSource<'a> {
    /// Part of the agent (`ast_edit`, `resolve`).
    BuiltIn,
    /// A tool pack.
    Pack(&'a LoadedPack),
}

/// A started session with what loading its packs did.
#[derive(Debug)]
pub struct Agent {
    /// The session.
    pub session: Session,
    /// What loading the packs did.
    pub report: LoadReport,
    /// Sources that named nothing usable.
    pub warnings: Vec<SourceWarning>,
}

impl Agent {
    /// Starts a session in `cwd` over the packs `discovery` found.
    ///
    /// # Errors
    ///
    /// See [`start_session`].
    pub fn start(cwd: &Path, discovery: Discovery) -> Result<Self, RegistryError> {
        let (session, report) = start_session(cwd, &discovery.packs)?;
        Ok(Self {
            session,
            report,
            warnings: discovery.warnings,
        })
    }

    /// Where the tool called `name` comes from.
    pub fn tool_source(&self, name: &str) -> ToolSource<'_> {
        self.report
            .loaded
            .iter()
            .find(|pack| pack.tools.iter().any(|tool| tool == name))
            .map_or(ToolSource::BuiltIn, ToolSource::Pack)
    }

    /// Every problem, one line each: load failures, tool conflicts, then
    /// source warnings.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = self.report.problems();
        problems.extend(self.warnings.iter().map(ToString::to_string));
        problems
    }

    /// Names of the tools a user can call, `resolve` included, in
    /// registration order.
    pub fn tool_names(&self) -> Vec<String> {
        self.session
            .tools()
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    }
}

/// True for the session's own `resolve` tool.
pub fn is_resolve(name: &str) -> bool {
    name == RESOLVE_TOOL_NAME
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_registered_before_any_pack() {
        let dir = tempfile::tempdir().unwrap();
        let (session, report) = start_session(dir.path(), &[]).unwrap();
        let names: Vec<String> = session
            .tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        assert_eq!(names, ["resolve", "ast_edit"]);
        assert!(report.is_clean());
    }

    #[test]
    fn a_missing_pack_is_a_load_failure_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("libnope.so");
        let agent = Agent::start(
            dir.path(),
            Discovery {
                packs: vec![missing],
                warnings: vec![],
            },
        )
        .unwrap();
        assert_eq!(agent.report.failures.len(), 1);
        assert_eq!(agent.tool_source("ast_edit"), ToolSource::BuiltIn);
    }
}
