//! Which paths of the working directory changed since the last snapshot,
//! told by the kernel (Linux inotify) instead of found by a walk: the
//! role `core.fsmonitor` plays for git on large trees. A snapshot then
//! re-reads only those paths; without a watcher (another system, the
//! kernel's watch limit reached, its event queue overflowed) the snapshot
//! compares every file's stamp with the index instead.

use std::path::Path;

#[cfg(target_os = "linux")]
pub(crate) use linux::Watcher;

#[cfg(not(target_os = "linux"))]
pub(crate) use other::Watcher;

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::{BTreeSet, HashMap};
    use std::path::{Path, PathBuf};

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

    use crate::dirty::Dirty;

    /// Every directory of the working directory (but skipped ones) watched
    /// for entries created, written, changed in mode, moved or deleted.
    pub(crate) struct Watcher {
        inotify: Inotify,
        cwd: PathBuf,
        /// Each watch's directory, relative to the working directory.
        dirs: HashMap<i32, (PathBuf, WatchDescriptor)>,
        buffer: Vec<u8>,
    }

    impl std::fmt::Debug for Watcher {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Watcher")
                .field("cwd", &self.cwd)
                .field("dirs", &self.dirs.len())
                .finish_non_exhaustive()
        }
    }

    fn mask() -> WatchMask {
        WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MODIFY
            | WatchMask::ATTRIB
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DONT_FOLLOW
            | WatchMask::ONLYDIR
            | WatchMask::EXCL_UNLINK
    }

    impl Watcher {
        /// Watches `cwd` and every directory below it that `skip` does not
        /// name (relative paths). `None` when the kernel refuses (no
        /// inotify, the watch limit reached).
        pub(crate) fn arm(cwd: &Path, skip: &dyn Fn(&Path) -> bool) -> Option<Self> {
            let inotify = match Inotify::init() {
                Ok(inotify) => inotify,
                Err(error) => {
                    tracing::debug!("no inotify: every snapshot compares every file: {error}");
                    return None;
                }
            };
            let mut watcher = Self {
                inotify,
                cwd: cwd.to_owned(),
                dirs: HashMap::new(),
                buffer: vec![0; 64 * 1024],
            };
            match watcher.watch_tree(Path::new(""), skip) {
                Ok(()) => Some(watcher),
                Err(error) => {
                    tracing::debug!(
                        "cannot watch {}: every snapshot compares every file: {error}",
                        cwd.display()
                    );
                    None
                }
            }
        }

        /// Watches directory `rel` and the directories below it.
        fn watch_tree(&mut self, rel: &Path, skip: &dyn Fn(&Path) -> bool) -> std::io::Result<()> {
            let mut stack = vec![rel.to_owned()];
            while let Some(dir) = stack.pop() {
                let full = self.cwd.join(&dir);
                let wd = match self.inotify.watches().add(&full, mask()) {
                    Ok(wd) => wd,
                    // Gone (or made a file) since it was listed: its parent's
                    // events say so.
                    Err(error)
                        if matches!(
                            error.kind(),
                            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                        ) =>
                    {
                        continue;
                    }
                    Err(error) => return Err(error),
                };
                self.dirs
                    .insert(wd.get_watch_descriptor_id(), (dir.clone(), wd));
                let Ok(entries) = std::fs::read_dir(&full) else {
                    continue;
                };
                for entry in entries.flatten() {
                    if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                        let child = dir.join(entry.file_name());
                        if !skip(&child) {
                            stack.push(child);
                        }
                    }
                }
            }
            Ok(())
        }

        /// Stops watching directory `rel` and everything below it.
        fn unwatch_tree(&mut self, rel: &Path) {
            let gone: Vec<i32> = self
                .dirs
                .iter()
                .filter(|(_, (dir, _))| dir.starts_with(rel))
                .map(|(id, _)| *id)
                .collect();
            for id in gone {
                if let Some((_, wd)) = self.dirs.remove(&id) {
                    // Already gone with its directory: nothing to undo.
                    let _ = self.inotify.watches().remove(wd);
                }
            }
        }

        /// The paths that changed since the last drain (or since
        /// [`arm`](Self::arm)); new directories are watched from now on.
        pub(crate) fn drain(&mut self, skip: &dyn Fn(&Path) -> bool) -> Dirty {
            let mut paths = BTreeSet::new();
            let mut new_dirs = Vec::new();
            loop {
                let mut buffer = std::mem::take(&mut self.buffer);
                let events = match self.inotify.read_events(&mut buffer) {
                    Ok(events) => events,
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                        self.buffer = buffer;
                        break;
                    }
                    Err(error) => {
                        self.buffer = buffer;
                        tracing::debug!("inotify read failed: {error}");
                        return Dirty::All;
                    }
                };
                let mut overflow = false;
                for event in events {
                    if event.mask.contains(EventMask::Q_OVERFLOW) {
                        overflow = true;
                        continue;
                    }
                    let id = event.wd.get_watch_descriptor_id();
                    if event.mask.contains(EventMask::IGNORED) {
                        self.dirs.remove(&id);
                        continue;
                    }
                    let (Some((dir, _)), Some(name)) = (self.dirs.get(&id), event.name) else {
                        continue;
                    };
                    let path = dir.join(name);
                    if event.mask.contains(EventMask::ISDIR) {
                        if event
                            .mask
                            .intersects(EventMask::CREATE | EventMask::MOVED_TO)
                        {
                            new_dirs.push(path.clone());
                        } else if event
                            .mask
                            .intersects(EventMask::DELETE | EventMask::MOVED_FROM)
                        {
                            new_dirs.retain(|dir: &PathBuf| !dir.starts_with(&path));
                            self.unwatch_tree(&path);
                        } else {
                            continue;
                        }
                    }
                    paths.insert(path);
                }
                self.buffer = buffer;
                if overflow {
                    tracing::debug!("inotify queue overflowed: comparing every file");
                    self.rearm_all(skip);
                    return Dirty::All;
                }
            }
            for dir in new_dirs {
                if !skip(&dir)
                    && let Err(error) = self.watch_tree(&dir, skip)
                {
                    tracing::debug!("cannot watch {}: {error}", dir.display());
                    return Dirty::All;
                }
            }
            Dirty::Paths(paths)
        }

        /// After an overflow: the watches may miss new directories.
        fn rearm_all(&mut self, skip: &dyn Fn(&Path) -> bool) {
            self.unwatch_tree(Path::new(""));
            if let Err(error) = self.watch_tree(Path::new(""), skip) {
                tracing::debug!("cannot watch {}: {error}", self.cwd.display());
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use std::path::Path;

    use crate::dirty::Dirty;

    /// No watcher off Linux: every snapshot compares every file's stamp.
    #[derive(Debug)]
    pub(crate) struct Watcher;

    impl Watcher {
        pub(crate) fn arm(_cwd: &Path, _skip: &dyn Fn(&Path) -> bool) -> Option<Self> {
            None
        }

        pub(crate) fn drain(&mut self, _skip: &dyn Fn(&Path) -> bool) -> Dirty {
            Dirty::All
        }
    }
}

/// Whether `rel` (relative to the working directory) is never snapshotted
/// whatever the ignore rules say: xcsh's own directory, and any `.git`
/// directory (the project's repository, or a nested one's).
pub(crate) fn is_own(rel: &Path) -> bool {
    rel.starts_with(".xcsh") || rel.components().any(|part| part.as_os_str() == ".git")
}

/// Whether `rel` is inside a nested git repository of `cwd` (a directory
/// below `cwd` holding `.git`): left to that repository, as git does.
pub(crate) fn in_nested_repository(cwd: &Path, rel: &Path) -> bool {
    let mut dir = cwd.to_owned();
    let mut parts = rel.components().peekable();
    while let Some(part) = parts.next() {
        dir.push(part);
        let last = parts.peek().is_none();
        if (!last || dir.is_dir()) && std::fs::symlink_metadata(dir.join(".git")).is_ok() {
            return true;
        }
    }
    false
}
