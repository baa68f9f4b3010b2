//! One path's content as git keeps it: a blob and a mode.

use std::path::Path;

use git2::{ObjectType, Oid};
use serde::{Deserialize, Serialize};

use crate::UndoError;

/// A regular file (mode `100644` or `100755`) or a symbolic link (`120000`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    /// The blob's id (hex).
    pub blob: String,
    /// The git mode.
    pub mode: u32,
}

/// Git's mode of an executable file.
pub(crate) const EXECUTABLE: u32 = 0o100_755;
/// Git's mode of a plain file.
pub(crate) const PLAIN: u32 = 0o100_644;
/// Git's mode of a symbolic link.
pub(crate) const LINK: u32 = 0o120_000;

impl FileState {
    /// What is at `path` now: `None` when nothing is; a directory or a
    /// special file is a state no snapshot has (mode 0).
    ///
    /// # Errors
    ///
    /// The path could not be read.
    pub fn of(path: &Path) -> Result<Option<Self>, UndoError> {
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(UndoError::io("read", path)(error)),
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(path).map_err(UndoError::io("read", path))?;
            let oid = Oid::hash_object(ObjectType::Blob, target.as_os_str().as_encoded_bytes())?;
            return Ok(Some(Self::new(oid, LINK)));
        }
        if !meta.is_file() {
            return Ok(Some(Self::new(Oid::ZERO_SHA1, 0)));
        }
        let oid = Oid::hash_file(ObjectType::Blob, path)?;
        Ok(Some(Self::new(oid, mode_of(&meta))))
    }

    pub(crate) fn new(oid: Oid, mode: u32) -> Self {
        Self {
            blob: oid.to_string(),
            mode,
        }
    }

    pub(crate) fn oid(&self) -> Result<Oid, UndoError> {
        Ok(Oid::from_str(&self.blob)?)
    }
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    if meta.permissions().mode() & 0o100 != 0 {
        EXECUTABLE
    } else {
        PLAIN
    }
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    PLAIN
}
