//! Installed packs: `xcsh pack add` checks a pack once, in a child process,
//! and records it with its tools' descriptors and a pinned SHA-256 in a
//! registry file; sessions offer its tools from that record and open the
//! library only when one of them is first called.
//!
//! - [`registry`]: the registry file and what it records;
//! - [`check`]: checking a pack in a `xcsh pack-host` child;
//! - [`compare`]: a pack must offer the same tools at every load;
//! - [`build`]: building a pack crate directory first;
//! - [`commands`]: `xcsh pack add`, `list`, `remove`, `verify`;
//! - [`lazy`]: a session's installed packs, opened at first use.

pub mod build;
pub mod check;
pub mod commands;
pub mod compare;
pub mod lazy;
pub mod registry;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use xcsh_core::{RegistryError, Session};
use xcsh_loader::{HostBinding, LoadReport, ToolConflict};

pub use lazy::{LazyPack, LazyTool};
pub use registry::{PackRecord, REGISTRY_FILE_NAME, Registry};

use crate::agent::RunPolicy;

/// Offers the packs of the registry at `registry_path` in `session`: each
/// tool from its record, none opened. A pack whose file start-up already
/// loaded (named by `--plugin` too, say) is skipped; a tool name already
/// taken is a conflict in `report`, as for any pack.
pub fn offer(
    session: &Session,
    registry_path: &Path,
    policy: &RunPolicy,
    report: &mut LoadReport,
) -> anyhow::Result<Vec<Arc<LazyPack>>> {
    let registry = Registry::load(registry_path)?;
    let binding = HostBinding::for_session(session);
    let mut offered = Vec::new();
    for record in registry.packs.into_values() {
        if report
            .loaded
            .iter()
            .any(|loaded| loaded.path == record.path)
        {
            tracing::debug!(pack = %record.name, "installed pack already loaded at start-up");
            continue;
        }
        let isolated = record.isolated || policy.isolation.settings_for(&record.path).is_some();
        let tools = record.tools.clone();
        let path: PathBuf = record.path.clone();
        let pack = Arc::new(LazyPack::new(
            record,
            registry_path.to_path_buf(),
            isolated,
            policy.isolation.clone(),
            policy.tool_timeout,
            session.cwd().to_path_buf(),
            Arc::downgrade(session.store()),
            binding.clone(),
        ));
        for tool in tools {
            match session.register_tool(Arc::new(LazyTool::new(tool, Arc::clone(&pack)))) {
                Ok(()) => {}
                Err(RegistryError::Conflict { name }) => {
                    let conflict = ToolConflict {
                        path: path.clone(),
                        name,
                    };
                    tracing::warn!(path = %path.display(), "{conflict}");
                    report.conflicts.push(conflict);
                }
                Err(other) => tracing::warn!(
                    "Installed pack {} ({}): {other}",
                    pack.record().name,
                    path.display()
                ),
            }
        }
        offered.push(pack);
    }
    Ok(offered)
}
