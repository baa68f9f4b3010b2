//! xcsh's own files (its config, pack registry, trust record, first-seen
//! records, journal key and MCP token) read one way, [`OwnFile::read`],
//! and held to the rules its packs are held to
//! ([`safe_path`](crate::safe_path)).
//!
//! - Only a regular file is read: a named pipe, a device (`/dev/zero`
//!   behind a link) or a socket is refused before a byte is read, and the
//!   open never blocks (`O_NONBLOCK`, then `fstat` on what was opened), so
//!   a FIFO cannot hang xcsh.
//! - At most a stated number of bytes is read; a longer file is refused.
//! - Whoever can write one of these files decides which code the agent
//!   runs, so the file, and every directory above it, must be owned by
//!   root or the user and writable by neither group nor others (a sticky
//!   directory such as `/tmp` excepted). A link is judged where it leads.
//!   A secret (key, token) must moreover be readable by the user only.
//!
//! Every refusal is one line naming the file and the fix.

use std::fs::File;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};

use crate::LoadError;

/// One of xcsh's own files, as it is read: where it is, what messages
/// call it (`the config file`) and how long it may be.
///
/// ```
/// # fn main() -> Result<(), String> {
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("config.toml");
/// let file = xcsh_loader::OwnFile::new(&path, "the config file", 1 << 20);
/// assert_eq!(file.read()?, None);
/// std::fs::write(&path, "tool_timeout_secs = 5\n").unwrap();
/// assert_eq!(file.read()?, Some(b"tool_timeout_secs = 5\n".to_vec()));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OwnFile<'a> {
    path: &'a Path,
    what: &'a str,
    limit: u64,
    private: bool,
    owner_checked: bool,
    no_links: bool,
}

impl<'a> OwnFile<'a> {
    /// The file at `path`, named `what` in messages (`the pack registry`),
    /// of at most `limit` bytes; its owner and mode, and those of the
    /// directories above it, are checked.
    pub fn new(path: &'a Path, what: &'a str, limit: u64) -> Self {
        Self {
            path,
            what,
            limit,
            private: false,
            owner_checked: true,
            no_links: false,
        }
    }

    /// Also refuses the file when its group or others may read it (a key
    /// or a token).
    #[must_use]
    pub fn private(self) -> Self {
        Self {
            private: true,
            ..self
        }
    }

    /// Also refuses the file when it is a symbolic link or has other names
    /// (a hard link): for a file xcsh also writes in place, such as the
    /// journal's key.
    #[must_use]
    pub fn without_links(self) -> Self {
        Self {
            no_links: true,
            ..self
        }
    }

    /// A file a project directory ships (`.xcsh/config.toml`): what it is
    /// and its size are checked, not its owner and mode, which its trust
    /// record (a hash of its bytes) stands for.
    #[must_use]
    pub fn in_project(self) -> Self {
        Self {
            owner_checked: false,
            ..self
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.path
    }

    /// The file's bytes; `None` when there is no such file.
    ///
    /// # Errors
    ///
    /// One line naming the file and the fix:
    ///
    /// - `refusing the config file that is a named pipe, not a regular
    ///   file: {path} (fix: remove it)` (also `a character device`,
    ///   `a block device`, `a socket`, `a directory`);
    /// - `refusing the config file larger than 1 MiB: {path} (fix: remove
    ///   it)`;
    /// - `refusing the config file writable by other users: {path} (fix:
    ///   chmod o-w {path})`, `… writable by its group …`, `… whose path is
    ///   owned by another user (uid {uid}) …`, naming the file or the
    ///   directory at fault;
    /// - for a private file, `refusing the journal key readable by other
    ///   users: {path} (fix: chmod 600 {path})`;
    /// - `cannot read the config file {path}: {error}` for any other
    ///   failure.
    pub fn read(&self) -> Result<Option<Vec<u8>>, String> {
        let Some(file) = self.open()? else {
            return Ok(None);
        };
        let metadata = file.metadata().map_err(|error| self.cannot(&error))?;
        if self.owner_checked {
            self.check_owner(&metadata)?;
        }
        if self.private {
            check_private(self, &metadata)?;
        }
        if self.no_links {
            check_one_name(self, &metadata)?;
        }
        let too_large = || self.refused(&format!("larger than {}", size(self.limit)), "remove it");
        if metadata.len() > self.limit {
            return Err(too_large());
        }
        let mut bytes = Vec::new();
        file.take(self.limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| self.cannot(&error))?;
        if bytes.len() as u64 > self.limit {
            return Err(too_large());
        }
        Ok(Some(bytes))
    }

    /// Opens the file if it is a regular file, without blocking: its type
    /// is judged on the path first (some devices act when opened), then on
    /// what was opened (a file swapped in between).
    fn open(&self) -> Result<Option<File>, String> {
        let stat = if self.no_links {
            std::fs::symlink_metadata(self.path)
        } else {
            std::fs::metadata(self.path)
        };
        match stat {
            Ok(metadata) => self.check_type(metadata.file_type())?,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(self.cannot(&error)),
        }
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            let mut flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
            if self.no_links {
                flags |= rustix::fs::OFlags::NOFOLLOW;
            }
            options.custom_flags(flags.bits() as i32);
        }
        let file = match options.open(self.path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            #[cfg(unix)]
            Err(error) if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                return Err(self.refused("that is a symbolic link", "remove it"));
            }
            Err(error) => return Err(self.cannot(&error)),
        };
        let metadata = file.metadata().map_err(|error| self.cannot(&error))?;
        self.check_type(metadata.file_type())?;
        Ok(Some(file))
    }

    fn check_type(&self, kind: std::fs::FileType) -> Result<(), String> {
        if kind.is_file() {
            return Ok(());
        }
        let what = if kind.is_symlink() {
            "a symbolic link".to_owned()
        } else {
            format!("{}, not a regular file", xcsh_safe_fs::describe(kind))
        };
        Err(self.refused(&format!("that is {what}"), "remove it"))
    }

    /// The file at the canonical path, owned and moded as the open file
    /// reports (`metadata`), and every directory above it.
    fn check_owner(&self, metadata: &std::fs::Metadata) -> Result<(), String> {
        let canonical = std::fs::canonicalize(self.path).map_err(|error| self.cannot(&error))?;
        crate::safe_path::check(&canonical, metadata)
            .map_err(|error| owner_refusal(self.what, error))
    }

    fn refused(&self, why: &str, fix: &str) -> String {
        format!(
            "refusing {} {why}: {} (fix: {fix})",
            self.what,
            self.path.display()
        )
    }

    fn cannot(&self, error: &dyn std::fmt::Display) -> String {
        format!("cannot read {} {}: {error}", self.what, self.path.display())
    }
}

#[cfg(unix)]
fn check_private(file: &OwnFile<'_>, metadata: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt as _;
    if metadata.mode() & 0o077 == 0 {
        return Ok(());
    }
    let path = file.path.display();
    Err(file.refused("readable by other users", &format!("chmod 600 {path}")))
}

#[cfg(unix)]
fn check_one_name(file: &OwnFile<'_>, metadata: &std::fs::Metadata) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt as _;
    if metadata.nlink() == 1 {
        return Ok(());
    }
    Err(file.refused("that has other names (a hard link)", "remove it"))
}

#[cfg(not(unix))]
fn check_one_name(_: &OwnFile<'_>, _: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_: &OwnFile<'_>, _: &std::fs::Metadata) -> Result<(), String> {
    Ok(())
}

/// `1 MiB`, `64 KiB`, `1000 bytes`.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// A safe-path refusal of one of xcsh's files (named `what`) in one line
/// with the fix.
fn owner_refusal(what: &str, error: LoadError) -> String {
    match error {
        LoadError::Untrusted { path } => format!(
            "refusing {what} writable by other users: {} (fix: chmod o-w {})",
            path.display(),
            path.display()
        ),
        LoadError::GroupWritable { path } => format!(
            "refusing {what} writable by its group: {} (fix: chmod g-w {})",
            path.display(),
            path.display()
        ),
        LoadError::ForeignOwner { path, uid } => format!(
            "refusing {what} whose path is owned by another user (uid {uid}): {} (fix: remove it and write your own)",
            path.display()
        ),
        other => format!("cannot examine {what}: {other}"),
    }
}

/// Checks xcsh's own file at `path`, named `what` in the message (e.g.
/// `the config file`), as [`OwnFile::read`] does before reading it: for
/// a caller about to write it. A file that does not exist passes: there
/// is nothing to check.
///
/// # Errors
///
/// One line naming the file or directory at fault and the fix, in the
/// words of the pack rules: `refusing the config file writable by other
/// users: /home/me/.config/xcsh (fix: chmod o-w /home/me/.config/xcsh)`.
pub fn check_own_file(path: &Path, what: &str) -> Result<(), String> {
    let canonical: PathBuf = match std::fs::canonicalize(path) {
        Ok(canonical) => canonical,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(format!("cannot examine {what} {}: {error}", path.display())),
    };
    let metadata = std::fs::metadata(&canonical)
        .map_err(|error| format!("cannot examine {what} {}: {error}", path.display()))?;
    crate::safe_path::check(&canonical, &metadata).map_err(|error| owner_refusal(what, error))
}

#[cfg(all(test, unix))]
mod tests;
