//! How much a store keeps: the `[undo]` table of the config
//! (`xcsh-sources`' `Limits`) with its defaults filled in.

/// Applies kept per working directory unless configured.
pub const DEFAULT_KEEP: usize = 100;
/// Days an apply is kept unless configured.
pub const DEFAULT_MAX_AGE_DAYS: u64 = 30;
/// The largest file snapshotted unless configured (8 MiB).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// A store's retention and size limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// How many applies are kept per working directory, newest first.
    pub keep: usize,
    /// Applies older than this many days are dropped.
    pub max_age_days: u64,
    /// Files larger than this (bytes) are left out of snapshots.
    pub max_file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            keep: DEFAULT_KEEP,
            max_age_days: DEFAULT_MAX_AGE_DAYS,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
        }
    }
}
