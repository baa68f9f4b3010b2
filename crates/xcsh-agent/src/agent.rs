//! Starting a session: built-in tools first, then the tool packs.
//!
//! Every front end (`tools`, `run`, `repl`, and later an MCP server) starts
//! its session here, so they all see the same tools in the same order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use xcsh_core::{RESOLVE_TOOL_NAME, RegistryError, Session};
use xcsh_installed::LazyPack;
use xcsh_isolate::{IsolatedInfo, Loaded, SessionLoader};
use xcsh_loader::{LoadReport, LoadedPack};
use xcsh_sources::{Discovery, RunPolicy, SourceWarning, UsedRegistry};

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
    let session = Session::new(cwd).with_limits(policy.limits());
    session.set_pack_options(policy.pack_options());
    let ast_edit =
        xcsh_ast_edit::AstEditOptions::default().allow_outside_root(policy.allow_outside_root);
    xcsh_ast_edit::register_builtins_with(&session, ast_edit)?;
    let loaded = SessionLoader {
        trust: &policy.trust,
        isolation: &policy.isolation,
        timeout: policy.tool_timeout,
        first_seen: policy.first_seen.as_ref(),
    }
    .load(&session, packs);
    Ok((session, loaded))
}

/// Where a registered tool comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolSource<'a> {
    /// Part of the agent (`ast_edit`, `resolve`).
    BuiltIn,
    /// A tool pack opened at start-up.
    Pack(&'a LoadedPack),
    /// An installed pack (`xcsh pack add`), opened at first use.
    Installed(&'a LazyPack),
}

impl ToolSource<'_> {
    /// The pack's name and version; `None` for a built-in.
    pub fn pack(&self) -> Option<(&str, &str)> {
        match self {
            Self::BuiltIn => None,
            Self::Pack(pack) => Some((&pack.name, &pack.version)),
            Self::Installed(pack) => Some((&pack.record().name, &pack.record().version)),
        }
    }
}

/// A started session with what loading its packs did.
#[derive(Debug)]
pub struct Agent {
    /// The session (shared: [`Session::drive`] runs it on threads of its
    /// own).
    pub session: Arc<Session>,
    /// What loading the packs did.
    pub report: LoadReport,
    /// Sources that named nothing usable.
    pub warnings: Vec<SourceWarning>,
    /// The packs that run in a process of their own.
    pub isolated: Vec<IsolatedInfo>,
    /// The installed packs offered (opened at first use).
    pub installed: Vec<Arc<LazyPack>>,
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
            session: Arc::new(session),
            report: loaded.report,
            warnings: discovery.warnings,
            isolated: loaded.isolated,
            installed: Vec::new(),
        })
    }

    /// [`start`](Self::start), then offers the installed packs of
    /// `registries`, in order (the user's, then the project's), after every
    /// pack start-up opened: so built-ins win a tool-name conflict, then
    /// start-up packs, then the user's installed packs, then the project's.
    ///
    /// # Errors
    ///
    /// A built-in could not be registered.
    pub fn start_with_installed(
        cwd: &Path,
        discovery: Discovery,
        policy: &RunPolicy,
        registries: Vec<UsedRegistry>,
    ) -> Result<Self, RegistryError> {
        let mut agent = Self::start(cwd, discovery, policy)?;
        agent.offer_installed(registries, policy);
        Ok(agent)
    }

    /// Offers the installed packs of `registries`, in order, after every
    /// tool registered so far (see
    /// [`start_with_installed`](Self::start_with_installed)).
    pub fn offer_installed(&mut self, registries: Vec<UsedRegistry>, policy: &RunPolicy) {
        for used in registries {
            let offered = xcsh_installed::offer(
                &self.session,
                used,
                policy,
                &mut self.report,
                &self.installed,
            );
            self.installed.extend(offered);
        }
    }

    /// Adds a warning for each `[packs.NAME]` table of the user's config
    /// (`settings`) that names no pack this session loaded or offers,
    /// naming the closest pack name, and returns the warnings added. A
    /// table that may belong to a library that failed to load (its file is
    /// the one a pack of that name builds) is left alone: that failure is
    /// reported already.
    pub fn check_pack_tables(&mut self, settings: &xcsh_sources::Settings) -> &[SourceWarning] {
        let before = self.warnings.len();
        let Some(file) = &settings.packs_file else {
            return &[];
        };
        let names: Vec<&str> = self
            .report
            .loaded
            .iter()
            .map(|pack| pack.name.as_str())
            .chain(
                self.installed
                    .iter()
                    .map(|pack| pack.record().name.as_str()),
            )
            .collect();
        let failed = |table: &str| {
            let library = xcsh_loader::discover::pack_file_name(table);
            self.report.failures.iter().any(|failure| {
                failure
                    .path
                    .file_name()
                    .is_some_and(|name| name == library.as_str())
            })
        };
        let unknown: Vec<_> =
            xcsh_sources::pack_tables::unknown_tables(&settings.packs, names.iter().copied())
                .into_iter()
                .filter(|unknown| !failed(&unknown.table))
                .map(|unknown| SourceWarning {
                    path: file.clone(),
                    origin: xcsh_sources::Origin::Config(file.clone()),
                    problem: xcsh_sources::Problem::UnknownPack(unknown),
                })
                .collect();
        self.warnings.extend(unknown);
        &self.warnings[before..]
    }

    /// How the pack loaded from `path` runs isolated; `None` if in-process.
    pub fn isolation(&self, path: &Path) -> Option<&IsolatedInfo> {
        self.isolated.iter().find(|info| info.path == path)
    }

    /// Where the tool called `name` comes from.
    pub fn tool_source(&self, name: &str) -> ToolSource<'_> {
        if let Some(pack) = self
            .report
            .loaded
            .iter()
            .find(|pack| pack.tools.iter().any(|tool| tool == name))
        {
            return ToolSource::Pack(pack);
        }
        self.installed
            .iter()
            .find(|pack| pack.record().tools.iter().any(|tool| tool.name == name))
            .map_or(ToolSource::BuiltIn, |pack| ToolSource::Installed(pack))
    }

    /// [`tool_source`](Self::tool_source) of every pack tool at once, by
    /// name (a name missing here is a built-in): a listing of hundreds of
    /// tools looks each one up once instead of scanning every pack.
    pub fn tool_sources(&self) -> HashMap<&str, ToolSource<'_>> {
        let mut sources = HashMap::new();
        // Inserted last wins: installed packs, then start-up packs, each
        // in reverse, so the first in `tool_source`'s order wins.
        for pack in self.installed.iter().rev() {
            for tool in pack.record().tools.iter().rev() {
                sources.insert(tool.name.as_str(), ToolSource::Installed(pack));
            }
        }
        for pack in self.report.loaded.iter().rev() {
            for tool in pack.tools.iter().rev() {
                sources.insert(tool.as_str(), ToolSource::Pack(pack));
            }
        }
        sources
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
                ..Discovery::default()
            },
            &RunPolicy::default(),
        )
        .unwrap();
        assert_eq!(agent.report.failures.len(), 1);
        assert_eq!(agent.tool_source("ast_edit"), ToolSource::BuiltIn);
    }
}
