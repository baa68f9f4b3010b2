//! One writer at a time for xcsh's own records (the pack registries, the
//! trust record): a writer holds an exclusive lock on a file beside the
//! record (`packs.json.lock` for `packs.json`) from reading the record to
//! renaming its new version into place, so two commands at once never
//! lose each other's change. The lock is the operating system's (`flock`
//! on Unix, `LockFileEx` on Windows, through `std::fs::File::lock`); the
//! lock file only names it, holds nothing and is never removed, so a
//! crashed writer leaves no stale lock behind.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// An exclusive lock, released when dropped.
#[derive(Debug)]
#[must_use = "the lock is held only while this lives"]
pub struct FileLock {
    _file: File,
}

/// The lock file of the record at `path`.
pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// Waits for, then takes, the exclusive lock of the record at `path`
/// (creating its directory and lock file, readable by the user only).
///
/// # Errors
///
/// The directory or lock file cannot be created or opened (a link there
/// is not followed), or the lock cannot be taken.
pub fn lock(path: &Path) -> io::Result<FileLock> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options
            .mode(0o600)
            .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits());
    }
    let file = options.open(lock_path(path))?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", lock_path(path).display()),
        ));
    }
    file.lock()?;
    Ok(FileLock { _file: file })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn writers_holding_the_lock_never_overlap() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("sub").join("record.json");
        let inside = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..20 {
                        let _held = lock(&record).unwrap();
                        assert_eq!(inside.fetch_add(1, Ordering::SeqCst), 0);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(
            lock_path(&record),
            dir.path().join("sub").join("record.json.lock")
        );
    }
}
