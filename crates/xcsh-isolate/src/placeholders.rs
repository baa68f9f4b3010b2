//! Empty directories xcsh puts where a protected record does not exist yet
//! (`.xcsh/` or `.git/` of the working directory, xcsh's own config, data
//! and cache directories), so that the namespace sandbox has something to bind
//! read-only there: otherwise a pack could create `.git/hooks/…` or
//! `.xcsh/config.toml` for the user's own tools to find.
//!
//! An empty `.git/` is no repository to git, which looks on in the
//! directories above. Each pack process has its placeholders; they are
//! removed when the process has ended, if still empty and no other pack
//! process (of this agent or another) relies on them: every process that
//! binds a directory of this kind holds a shared `flock` on it, and a
//! placeholder this agent made is removed only when the lock can be taken
//! exclusively (by whichever of the agent's pack processes ends last; one
//! another agent made is left to that agent).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use nix::fcntl::{Flock, FlockArg};

/// A directory a pack process binds.
#[derive(Debug)]
struct Held {
    path: PathBuf,
    lock: Flock<File>,
}

/// The placeholders this agent made, each with the directories created
/// for it, outermost first.
static MADE: Mutex<Vec<(PathBuf, Vec<PathBuf>)>> = Mutex::new(Vec::new());

/// The placeholders of one pack process, removed (where still empty and
/// unused) by [`remove_all`](Self::remove_all) or when dropped.
#[derive(Debug)]
pub struct Placeholders {
    held: Mutex<Vec<Held>>,
}

impl Placeholders {
    /// None yet.
    pub const fn new() -> Self {
        Self {
            held: Mutex::new(Vec::new()),
        }
    }

    /// Makes sure the directory `path` exists until
    /// [`remove_all`](Self::remove_all), creating it (and any missing
    /// parent) where it is missing, and marks it in use by this process.
    ///
    /// # Errors
    ///
    /// It could not be created or opened (a file of that name, no
    /// permission…).
    pub fn ensure(&self, path: &Path) -> std::io::Result<()> {
        let mut held = xcsh_core::sync::lock(&self.held);
        if held.iter().any(|h| h.path == path) {
            return Ok(());
        }
        // Another process may remove its placeholder between our creating (or
        // finding) and locking it: then the directory locked is not the one at
        // the path, and we start again.
        for _ in 0..8 {
            let created = create_missing(path)?;
            if !path.is_dir() {
                return Err(std::io::Error::other("it is not a directory"));
            }
            let file = File::open(path)?;
            let lock = Flock::lock(file, FlockArg::LockShared).map_err(|(_, e)| e)?;
            if same_directory(&lock, path) {
                if !created.is_empty() {
                    xcsh_core::sync::lock(&MADE).push((path.to_path_buf(), created));
                }
                held.push(Held {
                    path: path.to_path_buf(),
                    lock,
                });
                return Ok(());
            }
        }
        Err(std::io::Error::other("it keeps being removed"))
    }

    /// Removes the placeholders this agent made that are still empty and
    /// that no other pack process binds.
    pub fn remove_all(&self) {
        let held = std::mem::take(&mut *xcsh_core::sync::lock(&self.held));
        for Held { path, lock } in held.into_iter().rev() {
            drop(lock);
            let mut made = xcsh_core::sync::lock(&MADE);
            let Some(at) = made.iter().position(|(dir, _)| *dir == path) else {
                continue;
            };
            let Ok(file) = File::open(&path) else {
                continue;
            };
            let Ok(only_us) = Flock::lock(file, FlockArg::LockExclusiveNonblock) else {
                tracing::debug!(path = %path.display(), "placeholder still in use");
                continue;
            };
            let (_, created) = made.remove(at);
            for dir in created.iter().rev() {
                if std::fs::remove_dir(dir).is_err() {
                    break;
                }
            }
            drop(only_us);
        }
    }
}

impl Default for Placeholders {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Placeholders {
    fn drop(&mut self) {
        self.remove_all();
    }
}

/// Creates the missing directories of `path`, returning them outermost
/// first.
fn create_missing(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut missing: Vec<PathBuf> = path
        .ancestors()
        .take_while(|dir| std::fs::symlink_metadata(dir).is_err())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    let mut created = Vec::new();
    for dir in missing {
        match std::fs::create_dir(&dir) {
            Ok(()) => created.push(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(created)
}

#[cfg(unix)]
fn same_directory(open: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (open.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino() && b.is_dir(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placeholder_lives_until_removed_and_an_existing_directory_stays() {
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("kept");
        std::fs::create_dir(&existing).unwrap();
        let missing = dir.path().join("a/b/.git");
        let placeholders = Placeholders::new();
        placeholders.ensure(&existing).unwrap();
        placeholders.ensure(&missing).unwrap();
        placeholders.ensure(&missing).unwrap();
        assert!(missing.is_dir());
        placeholders.remove_all();
        assert!(existing.is_dir(), "not ours to remove");
        assert!(!dir.path().join("a").exists(), "created, so removed");
    }

    #[test]
    fn a_placeholder_that_something_was_put_in_stays() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join(".xcsh");
        let placeholders = Placeholders::new();
        placeholders.ensure(&missing).unwrap();
        std::fs::write(missing.join("journal.jsonl"), "{}\n").unwrap();
        placeholders.remove_all();
        assert!(missing.join("journal.jsonl").is_file());
    }

    #[test]
    fn a_file_in_the_way_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".git");
        std::fs::write(&file, "gitdir: elsewhere\n").unwrap();
        let placeholders = Placeholders::new();
        let error = |path: &Path| placeholders.ensure(path).unwrap_err().to_string();
        assert_eq!(error(&file.join("hooks")), "Not a directory (os error 20)");
        assert_eq!(error(&file), "it is not a directory");
    }

    #[test]
    fn a_placeholder_is_removed_by_the_last_pack_process_that_binds_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join(".git");
        let (ours, theirs) = (Placeholders::new(), Placeholders::new());
        ours.ensure(&missing).unwrap();
        theirs.ensure(&missing).unwrap();
        ours.remove_all();
        assert!(missing.is_dir(), "still bound by the other");
        theirs.remove_all();
        assert!(!missing.exists(), "removed by the last to end");
    }
}
