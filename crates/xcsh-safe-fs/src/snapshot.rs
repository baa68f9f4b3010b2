//! What a preview read of a file, so the apply can tell whether it changed.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{ContentHash, OpenError, open_regular, read_limited};

/// One file as a preview read it: where it really is, how messages name
/// it, and the hash of its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    path: PathBuf,
    display: String,
    hash: ContentHash,
}

impl Snapshot {
    /// Reads `path` (a regular file of at most `limit` bytes, opened
    /// without blocking) and returns its snapshot and its bytes. The path
    /// is resolved first, so a later write never replaces a link with a
    /// regular file, and a path that leads elsewhere at apply time is
    /// stale.
    ///
    /// # Errors
    ///
    /// The file is not a regular file, is larger than `limit`, or cannot be
    /// read.
    pub fn take(
        path: &Path,
        display: impl Into<String>,
        limit: u64,
    ) -> Result<(Self, Vec<u8>), OpenError> {
        let path = fs::canonicalize(path)?;
        let mut file = open_regular(&path, false)?;
        let bytes = read_limited(&mut file, limit)?;
        Ok((Self::of(path, display, &bytes), bytes))
    }

    /// The snapshot of `bytes`, read from `path` (already resolved: no
    /// symbolic link in it) by the caller.
    pub fn of(path: impl Into<PathBuf>, display: impl Into<String>, bytes: &[u8]) -> Self {
        Self {
            path: path.into(),
            display: display.into(),
            hash: ContentHash::of(bytes),
        }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How messages name it.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The hash of what was read.
    pub fn hash(&self) -> ContentHash {
        self.hash
    }
}
