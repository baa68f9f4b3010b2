//! A cache directory private to this user: small files, each written
//! whole (a new file renamed over the old), read without following links.
//!
//! The first-seen check keeps what opening a library did there, and the
//! isolated packs their start-up records. A directory that is not the
//! user's own, or that its group or others can write, is not used:
//! nothing is read from it and nothing written, so another user cannot
//! plant an entry.

use std::path::{Path, PathBuf};

/// A usable cache directory (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivateCache {
    dir: PathBuf,
}

impl PrivateCache {
    /// The cache in `dir`, created (mode 0700) if missing, if it is a
    /// directory owned by this user and writable by nobody else; `None`
    /// otherwise, with a warning naming `what` uses it and the fix.
    pub fn usable(dir: &Path, what: &str) -> Option<Self> {
        if let Err(error) = create_private_dir(dir) {
            tracing::debug!(dir = %dir.display(), %error, "{what} cache not usable");
            return None;
        }
        match std::fs::symlink_metadata(dir) {
            Ok(metadata) if metadata.is_dir() && private_to_me(&metadata) => Some(Self {
                dir: dir.to_path_buf(),
            }),
            _ => {
                tracing::warn!(
                    "not using the {what} cache {}: it must be a directory owned by you and writable by nobody else (fix: chmod 700 {})",
                    dir.display(),
                    dir.display()
                );
                None
            }
        }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The text of the regular file `name` in the cache, if it is there
    /// and at most `max` bytes long (a longer one is not an entry this
    /// crate wrote).
    /// It is read as xcsh's own files are ([`OwnFile`](crate::OwnFile),
    /// not through a link); an entry refused is only logged, as a missing
    /// one it is paid again.
    pub fn read(&self, name: &str, max: u64) -> Option<String> {
        let path = self.dir.join(name);
        let read = crate::OwnFile::new(&path, "the cache entry", max)
            .without_links()
            .read();
        match read {
            Ok(bytes) => String::from_utf8(bytes?).ok(),
            Err(error) => {
                tracing::debug!(%error, "cache entry not used");
                None
            }
        }
    }

    /// The first line of the entry `name` (see [`read`](Self::read)),
    /// trimmed; `None` when it is empty.
    pub fn read_line(&self, name: &str, max: u64) -> Option<String> {
        let text = self.read(name, max)?;
        let line = text.lines().next()?.trim();
        (!line.is_empty()).then(|| line.to_owned())
    }

    /// Writes `text` as the entry `name`: into a new file beside it,
    /// renamed over it. A failure is only logged: whatever the entry
    /// saves is then paid again next time.
    pub fn write(&self, name: &str, text: &str) {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let path = self.dir.join(name);
        let temporary = path.with_extension(format!(
            "tmp-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()))
            .and_then(|()| std::fs::rename(&temporary, &path));
        if let Err(error) = written {
            let _ = std::fs::remove_file(&temporary);
            tracing::debug!(path = %path.display(), %error, "cache entry not written");
        }
    }
}

/// A name for the file with `metadata` that changes whenever its contents
/// may have (device, inode, size, modification and change times); `None`
/// where the system reports no inode and change time.
#[cfg(unix)]
pub fn identity_key(metadata: &std::fs::Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    Some(format!(
        "file-{}-{}-{}-{}.{}-{}.{}",
        metadata.dev(),
        metadata.ino(),
        metadata.size(),
        metadata.mtime(),
        metadata.mtime_nsec(),
        metadata.ctime(),
        metadata.ctime_nsec()
    ))
}

/// See the Unix version: elsewhere there is no such key.
#[cfg(not(unix))]
pub fn identity_key(_metadata: &std::fs::Metadata) -> Option<String> {
    None
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

#[cfg(unix)]
fn private_to_me(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    metadata.uid() == rustix::process::geteuid().as_raw() && metadata.mode() & 0o022 == 0
}

#[cfg(not(unix))]
fn private_to_me(_metadata: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_back_and_an_oversized_or_linked_one_does_not() {
        let home = tempfile::tempdir().unwrap();
        let cache = PrivateCache::usable(&home.path().join("c"), "test").unwrap();
        cache.write("a", "one\ntwo\n");
        assert_eq!(cache.read("a", 100).as_deref(), Some("one\ntwo\n"));
        assert_eq!(cache.read_line("a", 100).as_deref(), Some("one"));
        assert_eq!(cache.read("a", 3), None, "longer than asked for");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(cache.dir().join("a"), cache.dir().join("b")).unwrap();
            assert_eq!(cache.read("b", 100), None, "a link is not followed");
        }
        assert_eq!(cache.read("missing", 100), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_others_can_write_is_not_used() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("c");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(PrivateCache::usable(&dir, "test"), None);
    }
}
