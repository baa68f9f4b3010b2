//! Loading a list of packs into a session.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use xcsh_core::{RegistryError, Session};

use crate::report::{LoadFailure, LoadReport, LoadedPack, ToolConflict};
use crate::{HostBinding, LoadError, PackLibrary, TrustPolicy};

/// Loads every pack in `paths` into `session`, bound to its store. Register
/// built-ins first: they win name conflicts, then the first pack loaded.
pub fn load_packs(session: &Session, paths: &[PathBuf]) -> LoadReport {
    load_packs_with(session, &HostBinding::for_session(session), paths)
}

/// Like [`load_packs`] with an explicit binding (e.g.
/// [`HostBinding::without_store`]) and the default [`TrustPolicy`].
pub fn load_packs_with(session: &Session, binding: &HostBinding, paths: &[PathBuf]) -> LoadReport {
    PackLoader::new().load(session, binding, paths)
}

/// Loads packs under a [`TrustPolicy`].
#[derive(Clone, Debug, Default)]
pub struct PackLoader {
    trust: TrustPolicy,
}

impl PackLoader {
    /// A loader with the default trust policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `trust` to decide which files may be opened.
    pub fn with_trust(mut self, trust: TrustPolicy) -> Self {
        self.trust = trust;
        self
    }

    /// Loads every pack in `paths` into `session` with tools bound to
    /// `binding`. Paths naming the same file load once. A failing pack is
    /// reported and the rest load.
    pub fn load(&self, session: &Session, binding: &HostBinding, paths: &[PathBuf]) -> LoadReport {
        load_all(&self.trust, session, binding, paths)
    }
}

fn load_all(
    trust: &TrustPolicy,
    session: &Session,
    binding: &HostBinding,
    paths: &[PathBuf],
) -> LoadReport {
    let mut report = LoadReport::default();
    let mut seen = HashSet::new();
    for path in paths {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if !seen.insert(canonical) {
            continue;
        }
        match load_one(trust, session, binding, path, &mut report) {
            Ok(pack) => report.loaded.push(pack),
            Err(error) => {
                let failure = LoadFailure {
                    path: path.clone(),
                    error,
                };
                tracing::warn!("{failure}");
                report.failures.push(failure);
            }
        }
    }
    report
}

fn load_one(
    trust: &TrustPolicy,
    session: &Session,
    binding: &HostBinding,
    path: &Path,
    report: &mut LoadReport,
) -> Result<LoadedPack, LoadError> {
    std::fs::metadata(path).map_err(|e| LoadError::Unreadable(e.to_string()))?;
    trust.check(path)?;
    let library = PackLibrary::open(path)?;
    let tools = library.create_tools(binding)?;
    let mut registered = Vec::new();
    for (index, tool) in tools.into_iter().enumerate() {
        let name = xcsh_core::Tool::name(&tool).to_owned();
        match session.register_tool(Arc::new(tool)) {
            Ok(()) => registered.push(name),
            Err(RegistryError::Conflict { name }) => {
                let conflict = ToolConflict {
                    path: path.to_path_buf(),
                    name,
                };
                tracing::warn!(path = %path.display(), "{conflict}");
                report.conflicts.push(conflict);
            }
            Err(other) => {
                return Err(LoadError::InvalidTool {
                    index: index + 1,
                    reason: crate::error::one_line(other),
                });
            }
        }
    }
    tracing::info!(pack = library.name(), tools = ?registered, "loaded tool pack");
    Ok(LoadedPack {
        path: library.path().to_path_buf(),
        name: library.name().to_owned(),
        version: library.version().to_owned(),
        tools: registered,
    })
}
