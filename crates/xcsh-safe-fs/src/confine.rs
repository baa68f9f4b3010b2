//! Keeping a path a tool was given inside the session's working directory.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symbolic links one resolution follows before giving up (as
/// Linux's `ELOOP` limit).
const MAX_LINKS: usize = 40;

/// Why a path was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// The path resolves (after `..` and symbolic links) outside the
    /// working directory, and the user has not allowed that.
    #[error(
        "path {path} is outside the working directory: it resolves to {} \
         (start xcsh with --allow-outside-root to allow this)",
        crate::name::shown(resolved)
    )]
    Outside {
        /// The path as the tool was given it, as people read it
        /// ([`name::shown`](crate::name::shown)).
        path: String,
        /// Where it leads.
        resolved: PathBuf,
    },
    /// The working directory or a link on the way could not be read.
    #[error("cannot resolve path {}: {source}", crate::name::shown(path))]
    Io {
        /// The path being resolved.
        path: PathBuf,
        /// The I/O failure.
        #[source]
        source: io::Error,
    },
}

/// `path` (relative to `root`, or absolute) resolved the way the kernel
/// would open it: `.` and `..` applied, every symbolic link followed
/// (dangling ones too, so a link to a file not yet made cannot lead a write
/// out), and refused when the result leaves `root` unless `allow_outside`.
///
/// The path need not exist: what does not exist yet is resolved as
/// written. A path that names nothing as written but holds `\xNN` escapes
/// of bytes 0x80 and above (a name as xcsh prints it) is taken as the name
/// with those bytes ([`name::given`](crate::name::given)). The answer holds at the moment of the call; a tool that writes
/// later should check again then (the [`WriteSet`](crate::WriteSet) of a
/// preview does).
///
/// # Errors
///
/// [`ConfineError::Outside`] with the host's own message (the one
/// `ast_edit` gives), or [`ConfineError::Io`] when `root` or a link cannot
/// be read.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let root = tempfile::tempdir()?;
/// let inside = xcsh_safe_fs::confine(root.path(), "src/../notes.txt", false)?;
/// assert!(inside.ends_with("notes.txt"));
/// let error = xcsh_safe_fs::confine(root.path(), "../x", false).unwrap_err();
/// assert!(error.to_string().starts_with("path ../x is outside the working directory: "));
/// # Ok(()) }
/// ```
pub fn confine(
    root: &Path,
    path: impl AsRef<Path>,
    allow_outside: bool,
) -> Result<PathBuf, ConfineError> {
    let path = path.as_ref();
    let io = |at: &Path| {
        let at = at.to_path_buf();
        move |source| ConfineError::Io { path: at, source }
    };
    let root = fs::canonicalize(root).map_err(io(root))?;
    let given = crate::name::given(&root, path);
    let joined = root.join(&given);
    let resolved = resolve(&joined, 0).map_err(io(&joined))?;
    if !allow_outside && !resolved.starts_with(&root) {
        return Err(ConfineError::Outside {
            path: crate::name::shown(path).into_owned(),
            resolved,
        });
    }
    Ok(resolved)
}

/// `path` with every symbolic link replaced by where it leads and `.` and
/// `..` applied; what does not exist is kept as written.
fn resolve(path: &Path, links: usize) -> io::Result<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => out.push(component.as_os_str()),
            Component::CurDir => {}
            // `out` holds no link, so going up is going to its parent.
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                match fs::symlink_metadata(&out) {
                    Ok(metadata) if metadata.file_type().is_symlink() => {
                        if links >= MAX_LINKS {
                            return Err(io::Error::other("too many levels of symbolic links"));
                        }
                        let target = fs::read_link(&out)?;
                        out.pop();
                        out = resolve(&out.join(target), links + 1)?;
                    }
                    Ok(_) => {}
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                    Err(error) => return Err(error),
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
