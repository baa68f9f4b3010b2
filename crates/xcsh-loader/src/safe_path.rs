//! Ownership and mode rules for pack files, in the spirit of OpenSSH's
//! StrictModes (`safe_path` in its `misc.c`).
//!
//! A pack file, and every directory above it up to `/`, must be owned by
//! root or by the user running the agent, and writable by neither group
//! nor others: anyone else who could write any of them could swap in code
//! the agent would run. One exception, as for `/tmp`: a directory with the
//! sticky bit may be writable by others, because the sticky bit stops them
//! from removing or renaming the entries of other users, and the entry
//! below it must itself be owned by root or the user.

use std::path::Path;

use crate::LoadError;

/// One path component's owner and mode, as `stat` reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The owner's user id.
    pub uid: u32,
    /// The permission bits, sticky bit included (`st_mode & 0o7777`).
    pub mode: u32,
}

/// Which component of a pack's path is being judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The pack file itself.
    File,
    /// A directory above it.
    Directory,
}

const GROUP_WRITE: u32 = 0o020;
const OTHERS_WRITE: u32 = 0o002;
const STICKY: u32 = 0o1000;

/// The rule for one component at `path` owned and moded as `entry`, for a
/// process whose effective user id is `me`.
///
/// # Errors
///
/// [`LoadError::ForeignOwner`], [`LoadError::Untrusted`] (writable by
/// others) or [`LoadError::GroupWritable`].
pub(crate) fn judge(path: &Path, role: Role, entry: Entry, me: u32) -> Result<(), LoadError> {
    if entry.uid != 0 && entry.uid != me {
        return Err(LoadError::ForeignOwner {
            path: path.to_path_buf(),
            uid: entry.uid,
        });
    }
    let shared_but_sticky = role == Role::Directory && entry.mode & STICKY != 0;
    if shared_but_sticky {
        return Ok(());
    }
    if entry.mode & OTHERS_WRITE != 0 {
        return Err(LoadError::Untrusted {
            path: path.to_path_buf(),
        });
    }
    if entry.mode & GROUP_WRITE != 0 {
        return Err(LoadError::GroupWritable {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// Checks the pack file at the canonical `path`, whose open file reports
/// `file`, and every directory above it, nearest first.
///
/// # Errors
///
/// The first component [`judge`] refuses, or [`LoadError::Unreadable`] for
/// a directory that cannot be examined.
#[cfg(unix)]
pub(crate) fn check(path: &Path, file: &std::fs::Metadata) -> Result<(), LoadError> {
    let me = rustix::process::geteuid().as_raw();
    judge(path, Role::File, entry_of(file), me)?;
    for dir in path.ancestors().skip(1) {
        let metadata = std::fs::symlink_metadata(dir)
            .map_err(|e| LoadError::Unreadable(format!("{}: {e}", dir.display())))?;
        judge(dir, Role::Directory, entry_of(&metadata), me)?;
    }
    Ok(())
}

/// Other systems have no such owner and mode bits: nothing to check.
#[cfg(not(unix))]
pub(crate) fn check(_path: &Path, _file: &std::fs::Metadata) -> Result<(), LoadError> {
    Ok(())
}

#[cfg(unix)]
fn entry_of(metadata: &std::fs::Metadata) -> Entry {
    use std::os::unix::fs::MetadataExt;

    Entry {
        uid: metadata.uid(),
        mode: metadata.mode() & 0o7777,
    }
}

#[cfg(test)]
mod tests;
