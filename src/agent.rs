//! Starting a session: built-in tools first, then the tool packs.
//!
//! Every front end (`tools`, `run`, `repl`, and later an MCP server) starts
//! its session here, so they all see the same tools in the same order.

use std::path::{Path, PathBuf};
use std::time::Duration;

use xcsh_core::{RESOLVE_TOOL_NAME, RegistryError, Session};
use xcsh_loader::{LoadReport, LoadedPack, TrustPolicy};

use crate::isolate::{IsolatedInfo, IsolationPolicy, Loaded, SessionLoader};

use crate::sources::{Discovery, Settings, SourceWarning};

/// How long a pack tool call may run unless configured otherwise.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(300);

/// How a session runs pack code.
#[derive(Clone, Debug)]
pub struct RunPolicy {
    /// Which pack files may be opened.
    pub trust: TrustPolicy,
    /// When to give up on a pack call; `None` never does.
    pub tool_timeout: Option<Duration>,
    /// Which packs run in a process of their own.
    pub isolation: IsolationPolicy,
}

impl Default for RunPolicy {
    fn default() -> Self {
        Self {
            trust: TrustPolicy::new(),
            tool_timeout: Some(DEFAULT_TOOL_TIMEOUT),
            isolation: IsolationPolicy::default(),
        }
    }
}

impl RunPolicy {
    /// The policy from the command line's timeout (which wins) and the
    /// config files' settings. A timeout of zero means no limit.
    pub fn new(flag_timeout: Option<Duration>, settings: &Settings) -> Self {
        let timeout = flag_timeout
            .or(settings.tool_timeout)
            .unwrap_or(DEFAULT_TOOL_TIMEOUT);
        let mut trust = TrustPolicy::new();
        if let Some(allow) = &settings.allow_list {
            trust = trust.with_allow_list(allow.iter().cloned());
        }
        Self {
            trust,
            tool_timeout: (!timeout.is_zero()).then_some(timeout),
            isolation: IsolationPolicy::new(settings.isolation.as_ref(), false),
        }
    }
}

/// A session in `cwd` with the built-in tools registered, then the packs at
/// `packs` loaded under `policy` (so built-ins win name conflicts, then the
/// first pack).
///
/// # Errors
///
/// Registering a built-in failed, which a fresh session never does.
pub fn start_session(
    cwd: &Path,
    packs: &[PathBuf],
    policy: &RunPolicy,
) -> Result<(Session, LoadReport), RegistryError> {
    let (session, loaded) = start_session_loaded(cwd, packs, policy)?;
    Ok((session, loaded.report))
}

/// [`start_session`], saying which packs run isolated.
///
/// # Errors
///
/// See [`start_session`].
pub fn start_session_loaded(
    cwd: &Path,
    packs: &[PathBuf],
    policy: &RunPolicy,
) -> Result<(Session, Loaded), RegistryError> {
    let session = Session::new(cwd);
    xcsh_ast_edit::register_builtins(&session)?;
    let loaded = SessionLoader {
        trust: &policy.trust,
        isolation: &policy.isolation,
        timeout: policy.tool_timeout,
    }
    .load(&session, packs);
    Ok((session, loaded))
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
    /// The packs that run in a process of their own.
    pub isolated: Vec<IsolatedInfo>,
}

impl Agent {
    /// Starts a session in `cwd` over the packs `discovery` found.
    ///
    /// # Errors
    ///
    /// See [`start_session`].
    pub fn start(
        cwd: &Path,
        discovery: Discovery,
        policy: &RunPolicy,
    ) -> Result<Self, RegistryError> {
        let (session, loaded) = start_session_loaded(cwd, &discovery.packs, policy)?;
        Ok(Self {
            session,
            report: loaded.report,
            warnings: discovery.warnings,
            isolated: loaded.isolated,
        })
    }

    /// How the pack loaded from `path` runs isolated; `None` if in-process.
    pub fn isolation(&self, path: &Path) -> Option<&IsolatedInfo> {
        self.isolated.iter().find(|info| info.path == path)
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
    fn the_flag_wins_over_the_config_and_zero_means_no_limit() {
        let settings = Settings {
            tool_timeout: Some(Duration::from_secs(5)),
            allow_list: None,
            isolation: None,
        };
        assert_eq!(
            RunPolicy::new(None, &Settings::default()).tool_timeout,
            Some(DEFAULT_TOOL_TIMEOUT)
        );
        assert_eq!(
            RunPolicy::new(None, &settings).tool_timeout,
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            RunPolicy::new(Some(Duration::from_secs(1)), &settings).tool_timeout,
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            RunPolicy::new(Some(Duration::ZERO), &settings).tool_timeout,
            None
        );
    }

    #[test]
    fn builtins_are_registered_before_any_pack() {
        let dir = tempfile::tempdir().unwrap();
        let (session, report) = start_session(dir.path(), &[], &RunPolicy::default()).unwrap();
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
            &RunPolicy::default(),
        )
        .unwrap();
        assert_eq!(agent.report.failures.len(), 1);
        assert_eq!(agent.tool_source("ast_edit"), ToolSource::BuiltIn);
    }
}
