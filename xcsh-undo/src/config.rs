//! The `[undo]` table of a config file.

use serde::Deserialize;

/// Snapshots before and after each apply, on by default.
///
/// ```toml
/// [undo]
/// enabled = true          # false: no snapshots (a project's config may say so too)
/// keep = 100              # applies kept per working directory, newest first
/// max_age_days = 30       # older ones are dropped
/// max_file_bytes = 8388608  # larger files are not snapshotted
/// ```
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
    /// Files larger than this are left out of snapshots.
    #[serde(default)]
    pub max_file_bytes: Option<u64>,
}

/// Applies kept per working directory unless configured.
pub const DEFAULT_KEEP: usize = 100;
/// Days an apply is kept unless configured.
pub const DEFAULT_MAX_AGE_DAYS: u64 = 30;
/// The largest file snapshotted unless configured (8 MiB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

impl UndoConfig {
    /// Whether snapshots are taken.
    pub fn enabled(&self) -> bool {
        self.enabled != Some(false)
    }

    /// Applies kept per working directory.
    pub fn keep(&self) -> usize {
        self.keep.unwrap_or(DEFAULT_KEEP)
    }

    /// Days an apply is kept.
    pub fn max_age_days(&self) -> u64 {
        self.max_age_days.unwrap_or(DEFAULT_MAX_AGE_DAYS)
    }

    /// The largest file snapshotted, in bytes.
    pub fn max_file_bytes(&self) -> u64 {
        self.max_file_bytes.unwrap_or(DEFAULT_MAX_FILE_BYTES)
    }
}
