//! What git does not keep of a file: its full permission bits, owner,
//! group and modification time, recorded at each snapshot for every file
//! the snapshot holds, so an undo puts them back as they were.
//!
//! Git's index keeps a regular file's mode as `100644` or `100755` only: a
//! file of mode 600 or 640 would come back readable by every user. The
//! session keeps this table beside the index, in memory: refreshed for
//! every path a snapshot read again, so it stays exact for as long as the
//! index does (the watcher reports a `chmod` or `chown` as it does a write).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::names;

/// A file's metadata as a snapshot saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMeta {
    /// Its permission bits (`0o7777` at most), e.g. `0o640`.
    pub mode: u32,
    /// Its owner's user id.
    pub uid: u32,
    /// Its group id.
    pub gid: u32,
    /// Its modification time: seconds since the epoch.
    pub mtime: i64,
    /// Its modification time: nanoseconds past `mtime`.
    pub mtime_nsec: u32,
}

impl FileMeta {
    /// What is at `path` now (not following a link); `None` when nothing
    /// is, or on a system without these fields.
    pub(crate) fn of(path: &Path) -> Option<Self> {
        #[cfg(unix)]
        {
            let meta = std::fs::symlink_metadata(path).ok()?;
            (meta.is_file() || meta.file_type().is_symlink()).then(|| Self::from_std(&meta))
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }

    #[cfg(unix)]
    pub(crate) fn from_std(meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt as _;
        Self {
            mode: meta.mode() & 0o7777,
            uid: meta.uid(),
            gid: meta.gid(),
            mtime: meta.mtime(),
            mtime_nsec: u32::try_from(meta.mtime_nsec()).unwrap_or(0),
        }
    }
}

/// The metadata of every file of the last snapshot, by path relative to
/// the working directory: its exact bytes, in git's `/`-separated form (a
/// name need not be UTF-8).
#[derive(Debug, Default)]
pub(crate) struct MetaTable {
    files: BTreeMap<Vec<u8>, FileMeta>,
}

/// What a refresh replaced: the metadata the paths it read again had at
/// the snapshot before, so an apply's record can say what was there before
/// it.
#[derive(Debug, Default)]
pub(crate) struct Replaced {
    /// Every path the table held before (a refresh of the whole tree).
    all: Option<BTreeMap<Vec<u8>, FileMeta>>,
    /// The old values of the paths read again (`None`: not in the table).
    some: BTreeMap<Vec<u8>, Option<FileMeta>>,
}

impl Replaced {
    /// What `path` had before the refresh, looked up in `table` when the
    /// refresh did not touch it.
    pub(crate) fn before(&self, table: &MetaTable, path: &Path) -> Option<FileMeta> {
        let path = names::bytes(path);
        if let Some(all) = &self.all {
            return all.get(&path).copied();
        }
        match self.some.get(&path) {
            Some(old) => *old,
            None => table.files.get(&path).copied(),
        }
    }
}

impl MetaTable {
    /// Every file of `index` looked at again: after a snapshot that
    /// compared every stamp.
    pub(crate) fn refresh_all(&mut self, cwd: &Path, index: &git2::Index) -> Replaced {
        let mut files = BTreeMap::new();
        for entry in index.iter() {
            if let Some(meta) = FileMeta::of(&cwd.join(names::from_bytes(&entry.path))) {
                files.insert(entry.path, meta);
            }
        }
        Replaced {
            all: Some(std::mem::replace(&mut self.files, files)),
            some: BTreeMap::new(),
        }
    }

    /// The files of `index` at or under each of `paths` looked at again
    /// (and those no longer there dropped): after a snapshot of only those.
    pub(crate) fn refresh(
        &mut self,
        cwd: &Path,
        index: &git2::Index,
        paths: &std::collections::BTreeSet<PathBuf>,
    ) -> Replaced {
        let mut replaced = Replaced::default();
        for rel in paths {
            let rel = names::bytes(rel);
            let under = [rel.as_slice(), b"/"].concat();
            let at_or_under = |path: &[u8]| path == rel || path.starts_with(&under);
            let stale: Vec<Vec<u8>> = self
                .files
                .range(rel.clone()..)
                .map(|(path, _)| path)
                .take_while(|path| path.starts_with(&rel))
                .filter(|path| at_or_under(path))
                .cloned()
                .collect();
            for path in stale {
                let old = self.files.remove(&path);
                replaced.some.entry(path).or_insert(old);
            }
            let Ok(mut at) = index.find_prefix(names::from_bytes(&rel)) else {
                continue;
            };
            while let Some(entry) = index.get(at) {
                let path = entry.path;
                if !at_or_under(&path) {
                    if path.starts_with(&rel) {
                        at += 1;
                        continue;
                    }
                    break;
                }
                if let Some(meta) = FileMeta::of(&cwd.join(names::from_bytes(&path))) {
                    let old = self.files.insert(path.clone(), meta);
                    replaced.some.entry(path).or_insert(old);
                }
                at += 1;
            }
        }
        replaced
    }
}
