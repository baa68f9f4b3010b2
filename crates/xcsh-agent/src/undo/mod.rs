//! Undo: snapshots around every apply of a session ([`install`]) and the
//! undo of one apply ([`command`]), on the `xcsh-undo` store kept in the
//! user's data directory. See `docs/undo.md`.

pub mod command;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use xcsh_sources::{Settings, UndoConfig};
use xcsh_undo::{Limits, UndoObserver};

use crate::agent::Agent;

/// The directory under the user's xcsh data directory holding one undo
/// store per working directory.
pub const UNDO_DIR_NAME: &str = "undo";

/// Where the undo stores live: `undo` in the user's xcsh data directory
/// `user` (e.g. `~/.local/share/xcsh/undo`); `None` without one.
pub fn root(user: Option<&Path>) -> Option<PathBuf> {
    user.map(|data| data.join(UNDO_DIR_NAME))
}

/// The store limits of the user's `[undo]` table, defaults filled in.
pub fn limits(config: Option<&UndoConfig>) -> Limits {
    let defaults = Limits::default();
    let Some(config) = config else {
        return defaults;
    };
    Limits {
        keep: config.keep.unwrap_or(defaults.keep),
        max_age_days: config.max_age_days.unwrap_or(defaults.max_age_days),
        max_file_bytes: config.max_file_bytes.unwrap_or(defaults.max_file_bytes),
    }
}

/// Gives `agent`'s session a snapshot around every apply, whoever
/// produced the action (a built-in, a pack in process or isolated: the
/// agent takes the snapshot, the pack does nothing), unless the user's
/// config or the trusted project's turned them off, or there is no user
/// data directory (`user`) to keep them in.
pub fn install(agent: &Agent, settings: &Settings, cwd: &Path, user: Option<&Path>) {
    let config = settings.undo.as_ref();
    if !config.is_none_or(UndoConfig::enabled) || settings.project.undo_off {
        tracing::debug!("undo snapshots are turned off");
        return;
    }
    let Some(root) = root(user) else {
        tracing::warn!("no user data directory: applies in this session cannot be undone");
        return;
    };
    agent
        .session
        .set_apply_observer(Arc::new(UndoObserver::new(&root, cwd, limits(config))));
}
