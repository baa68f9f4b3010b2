//! The `[undo]` table of a config file: snapshots around every apply (see
//! `docs/undo.md`), on unless a config turns them off.
//!
//! ```toml
//! [undo]
//! enabled = true            # false: no snapshots (a trusted project's config may say so too)
//! keep = 100                # applies kept per working directory, newest first
//! max_age_days = 30         # older ones are dropped
//! max_file_bytes = 8388608  # larger files are not snapshotted
//! ```
//!
//! A project's config can only turn snapshots off; its other `[undo]` keys
//! are the user's to set and are ignored there.

use serde::Deserialize;

/// The `[undo]` table; every key optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UndoConfig {
    /// `false` turns snapshots off.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// How many applies are kept per working directory.
    #[serde(default)]
    pub keep: Option<usize>,
    /// Applies older than this many days are dropped.
    #[serde(default)]
    pub max_age_days: Option<u64>,
    /// Files larger than this many bytes are left out of snapshots.
    #[serde(default)]
    pub max_file_bytes: Option<u64>,
}

impl UndoConfig {
    /// Whether snapshots are taken (the default).
    pub fn enabled(&self) -> bool {
        self.enabled != Some(false)
    }
}
