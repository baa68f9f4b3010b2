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
    /// The file's device and inode when [`take`](Snapshot::take) read it
    /// (Unix), so a [`WriteSet`](crate::WriteSet) sees two names of one
    /// file (hard links) at preview time.
    identity: Option<(u64, u64)>,
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
        let snapshot = Self {
            identity: identity(&file),
            ..Self::of(path, display, &bytes)
        };
        Ok((snapshot, bytes))
    }

    /// The snapshot of `bytes`, read from `path` (already resolved: no
    /// symbolic link in it) by the caller.
    pub fn of(path: impl Into<PathBuf>, display: impl Into<String>, bytes: &[u8]) -> Self {
        Self {
            path: path.into(),
            display: display.into(),
            hash: ContentHash::of(bytes),
            identity: None,
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

    /// Whether `self` and `other` name one file: the same resolved path,
    /// or (for snapshots [`take`](Self::take) made, on Unix) the same
    /// device and inode, as two hard links of a file do.
    pub fn same_file(&self, other: &Snapshot) -> bool {
        self.path == other.path
            || matches!((self.identity, other.identity), (Some(a), Some(b)) if a == b)
    }
}

/// The device and inode of an open file (`None` where there are none).
#[cfg(unix)]
fn identity(file: &fs::File) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    file.metadata().ok().map(|meta| (meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_file: &fs::File) -> Option<(u64, u64)> {
    None
}
