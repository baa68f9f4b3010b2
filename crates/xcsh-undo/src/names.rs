//! Paths as the undo log keeps them: text that gives back the exact bytes.
//!
//! On Unix a file name is bytes, not text, and the log is JSON. A path is
//! stored as `xcsh_safe_fs::name::as_text` writes it (valid UTF-8 as it
//! is, each byte that is not part of valid UTF-8 as `\xNN`) and read back
//! with `from_text`, so undo compares and restores the very bytes the
//! snapshot holds; a log written before (plain UTF-8 names) reads the
//! same. People see a path as `shown` prints it.

use std::path::{Path, PathBuf};

use xcsh_safe_fs::name;

/// `path` (relative, `/`-separated) as the log stores it.
pub(crate) fn stored(path: &Path) -> String {
    #[cfg(unix)]
    {
        name::as_text(path).into_owned()
    }
    #[cfg(not(unix))]
    {
        name::as_text(path).replace('\\', "/")
    }
}

/// The path a stored path stands for, byte for byte.
pub(crate) fn path(stored: &str) -> PathBuf {
    name::from_text(stored)
}

/// The path stored path `stored` stands for in an apply whose snapshot
/// trees are `trees`: its `\xNN` escapes as bytes, unless a path of that
/// very text is in one of the trees (a UTF-8 name that holds `\xe9`
/// itself), which it then is.
pub(crate) fn exact(repo: &git2::Repository, trees: &[&str], stored: &str) -> PathBuf {
    let decoded = path(stored);
    if decoded.as_os_str() == stored {
        return decoded;
    }
    let literal = Path::new(stored);
    let in_tree = |tree: &&str| {
        git2::Oid::from_str(tree)
            .and_then(|oid| repo.find_tree(oid))
            .and_then(|tree| tree.get_path(literal))
            .is_ok()
    };
    if trees.iter().any(in_tree) {
        literal.to_owned()
    } else {
        decoded
    }
}

/// A path as the undo log stores it ([`Change::path`](crate::Change::path),
/// [`PathOp::path`](crate::PathOp::path), [`UndoRecord::restored`](crate::UndoRecord::restored))
/// as people read it: `\xff.rs` for the file named by byte 0xFF, control
/// characters escaped (`xcsh_safe_fs::name::shown`).
pub fn shown(stored: &str) -> String {
    name::shown(&path(stored)).into_owned()
}

/// Stored paths for people, comma-separated.
pub(crate) fn shown_list<'a>(stored: impl IntoIterator<Item = &'a str>) -> String {
    stored.into_iter().map(shown).collect::<Vec<_>>().join(", ")
}

/// The bytes of `path` as the system holds them (git's form of a path of
/// its index: `/`-separated).
pub(crate) fn bytes(path: &Path) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        stored(path).into_bytes()
    }
}

/// The path `bytes` ([`bytes`]'s form, or a git index entry's) names.
pub(crate) fn from_bytes(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}
