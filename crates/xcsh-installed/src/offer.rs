//! A session's installed packs, offered from their records.

use std::path::PathBuf;
use std::sync::Arc;

use xcsh_core::{RegistryError, Session};
use xcsh_loader::{HostBinding, LoadReport, ToolConflict};
use xcsh_sources::{RunPolicy, UsedRegistry};

use crate::lazy::{LazyPack, LazyTool, OpenContext};

/// Offers the packs of `used` in `session`: each tool from its record,
/// none opened. A pack whose file start-up already loaded (named by
/// `--plugin` too, say), or an earlier registry already offers (`before`),
/// is skipped; a tool name already taken is a conflict in `report`, as for
/// any pack.
pub fn offer(
    session: &Session,
    used: UsedRegistry,
    policy: &RunPolicy,
    report: &mut LoadReport,
    before: &[Arc<LazyPack>],
) -> Vec<Arc<LazyPack>> {
    let context = Arc::new(OpenContext {
        isolation: policy.isolation.clone(),
        timeout: policy.tool_timeout,
        cwd: session.cwd().to_path_buf(),
        store: Arc::downgrade(session.store()),
        binding: HostBinding::for_session(session),
    });
    let mut offered = Vec::new();
    for record in used.registry.packs.into_values() {
        if report
            .loaded
            .iter()
            .any(|loaded| loaded.path == record.path)
        {
            tracing::debug!(pack = %record.name, "installed pack already loaded at start-up");
            continue;
        }
        if before.iter().any(|pack| pack.record().path == record.path) {
            tracing::debug!(pack = %record.name, "installed pack already offered by the user's registry");
            continue;
        }
        let isolated = record.isolated || policy.isolation.settings_for(&record.path).is_some();
        let path: PathBuf = record.path.clone();
        let pack = Arc::new(LazyPack::new(
            record,
            Arc::clone(&used.file),
            isolated,
            Arc::clone(&context),
        ));
        for index in 0..pack.record().tools.len() {
            // Checked by `xcsh pack add`: compiled at the tool's first call.
            let tool = Arc::new(LazyTool::new(Arc::clone(&pack), index));
            match session.register_schema_checked_tool(tool) {
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
    offered
}
