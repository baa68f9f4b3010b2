//! Writing the files of one previewed change: every file or none.

use std::fs::{self, File};
use std::io;

use tempfile::NamedTempFile;

use crate::in_place::{overwrite, save_backup};
use crate::{ContentHash, OpenError, Snapshot, WriteError, fault, open_regular, read_limited};

/// The default size limit of a file the set reads back at apply time.
pub const DEFAULT_LIMIT: u64 = 16 * 1024 * 1024;

/// What to do with a file that changed since the preview.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StalePolicy {
    /// One stale file and nothing is written ([`WriteError::Stale`]).
    Refuse,
    /// Stale files are listed in the report and left alone; the others are
    /// written (all or none). If every file is stale, the apply fails with
    /// [`WriteError::Stale`] (an "applied" that changed nothing would
    /// mislead). `ast_edit` works this way.
    Skip,
}

/// The new content of each file a preview read, written at apply time.
///
/// [`apply`](Self::apply):
///
/// 1. opens every file (regular files only, never blocking, no link
///    followed), takes an exclusive lock on it (in path order, so two
///    applies never wait for each other), and reads it back through the
///    locked descriptor;
/// 2. compares it with the [`Snapshot`]: a file changed since (or gone, or
///    whose path leads elsewhere now) is *stale*; one that already holds
///    the new content counts as written, so an apply retried after a crash
///    finishes the job;
/// 3. saves the old content of each file it will write beside it
///    (`.{name}.{tag}-backup-XXXXXX`, flushed);
/// 4. writes each file in place (same inode: hard links, owner, group,
///    mode, extended attributes kept) and flushes it;
/// 5. if a write fails, writes the old content back into every file
///    written so far and fails: no file changed. The backups are removed
///    at the end; one left behind means the process died mid-apply and
///    holds the file's old content.
///
/// The lock is advisory: another apply through xcsh waits for it, an editor
/// that does not take it can still write in between, as with any tool that
/// edits files.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use xcsh_safe_fs::{Snapshot, StalePolicy, WriteSet};
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.txt"), "old")?;
/// // At preview time:
/// let (snapshot, bytes) = Snapshot::take(&dir.path().join("a.txt"), "a.txt", 1 << 20)?;
/// let mut set = WriteSet::new("text-replace");
/// set.add(snapshot, String::from_utf8(bytes)?.replace("old", "new"));
/// // At apply time:
/// let report = set.apply(StalePolicy::Refuse)?;
/// assert_eq!(report.applied, [0]);
/// assert_eq!(std::fs::read_to_string(dir.path().join("a.txt"))?, "new");
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct WriteSet {
    tag: String,
    limit: u64,
    edits: Vec<Edit>,
}

#[derive(Clone, Debug)]
struct Edit {
    snapshot: Snapshot,
    contents: Vec<u8>,
}

/// What an apply did, by index into the set (the order of
/// [`add`](WriteSet::add)).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// The files that now hold their new content.
    pub applied: Vec<usize>,
    /// The files left alone because they changed since the preview (only
    /// with [`StalePolicy::Skip`]).
    pub stale: Vec<usize>,
}

impl WriteSet {
    /// An empty set. `tag` names the backups (`.{name}.{tag}-backup-*`):
    /// use the pack's or tool's name, so a user who finds one knows whose
    /// it is.
    pub fn new(tag: impl Into<String>) -> Self {
        Self {
            tag: tag.into(),
            limit: DEFAULT_LIMIT,
            edits: Vec::new(),
        }
    }

    /// The size limit of a file read back at apply time (a larger file
    /// changed since the preview, or was never one the set could handle).
    pub fn with_limit(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }

    /// Adds the new `contents` of the file `snapshot` read. Two names of
    /// one file are refused only when the set is applied; use
    /// [`try_add`](Self::try_add) at preview time to refuse them there.
    pub fn add(&mut self, snapshot: Snapshot, contents: impl Into<Vec<u8>>) {
        self.edits.push(Edit {
            snapshot,
            contents: contents.into(),
        });
    }

    /// As [`add`](Self::add), refusing a file the set holds already under
    /// this or another name (a hard link of it; see
    /// [`Snapshot::same_file`]): writing both would lose one edit, so a
    /// preview says so at once instead of at apply time.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use xcsh_safe_fs::{Snapshot, WriteSet};
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("a.txt"), "old")?;
    /// std::fs::hard_link(dir.path().join("a.txt"), dir.path().join("b.txt"))?;
    /// let mut set = WriteSet::new("text-replace");
    /// let (a, _) = Snapshot::take(&dir.path().join("a.txt"), "a.txt", 1 << 20)?;
    /// set.try_add(a, "new")?;
    /// let (b, _) = Snapshot::take(&dir.path().join("b.txt"), "b.txt", 1 << 20)?;
    /// assert_eq!(
    ///     set.try_add(b, "newer").unwrap_err().to_string(),
    ///     "a.txt and b.txt are the same file (hard links): list it under one name only; no file was changed"
    /// );
    /// assert_eq!(set.len(), 1);
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// [`WriteError::SameFile`] naming both names; the set is unchanged.
    pub fn try_add(
        &mut self,
        snapshot: Snapshot,
        contents: impl Into<Vec<u8>>,
    ) -> Result<(), WriteError> {
        if let Some(first) = self.snapshots().find(|held| held.same_file(&snapshot)) {
            return Err(WriteError::SameFile {
                first: first.display().to_owned(),
                second: snapshot.display().to_owned(),
            });
        }
        self.add(snapshot, contents);
        Ok(())
    }

    /// The snapshots, in the order they were added.
    pub fn snapshots(&self) -> impl Iterator<Item = &Snapshot> {
        self.edits.iter().map(|edit| &edit.snapshot)
    }

    /// How many files the set holds.
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    /// True if it holds none.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Writes every file, or none (see the type's docs).
    ///
    /// # Errors
    ///
    /// A [`WriteError`]; every variant but [`WriteError::Restore`] means no
    /// file changed, so the caller's pending action can stay pending.
    pub fn apply(&self, stale_policy: StalePolicy) -> Result<WriteReport, WriteError> {
        let mut order: Vec<usize> = (0..self.edits.len()).collect();
        order.sort_by(|&a, &b| {
            self.edits[a]
                .snapshot
                .path()
                .cmp(self.edits[b].snapshot.path())
        });
        let mut checked: Vec<Checked> = Vec::new();
        let mut report = WriteReport::default();
        let mut identities = Identities::default();
        for index in order {
            let edit = &self.edits[index];
            let check_error = |source| WriteError::Check {
                file: edit.snapshot.display().to_owned(),
                source,
            };
            let Some(file) = self.open(edit).map_err(check_error)? else {
                report.stale.push(index);
                continue;
            };
            // Before the lock: a second lock on one file would wait forever.
            if let Some(first) = identities
                .insert(&file, index)
                .map_err(|error| check_error(error.into()))?
            {
                return Err(WriteError::SameFile {
                    first: self.display(first).to_owned(),
                    second: self.display(index).to_owned(),
                });
            }
            match self.check(edit, file).map_err(check_error)? {
                State::Stale => report.stale.push(index),
                State::Done => report.applied.push(index),
                State::Ready { file, current } => checked.push(Checked {
                    index,
                    file,
                    current,
                }),
            }
        }
        report.stale.sort_unstable();
        if !report.stale.is_empty()
            && (stale_policy == StalePolicy::Refuse
                || (checked.is_empty() && report.applied.is_empty()))
        {
            return Err(WriteError::Stale {
                files: report
                    .stale
                    .iter()
                    .map(|&i| self.edits[i].snapshot.display().to_owned())
                    .collect(),
            });
        }
        self.write_all(&mut checked)?;
        report.applied.extend(checked.iter().map(|c| c.index));
        report.applied.sort_unstable();
        Ok(report)
    }

    /// Opens the file of `edit` for writing; `None` if it is stale already
    /// (gone, or its path leads elsewhere now).
    fn open(&self, edit: &Edit) -> Result<Option<File>, OpenError> {
        let path = edit.snapshot.path();
        // The preview resolved every link; a path that leads elsewhere now
        // (a directory swapped for a link) is not the file it read.
        match fs::canonicalize(path) {
            Ok(resolved) if resolved == path => {}
            Ok(_) => return Ok(None),
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error.into()),
        }
        match open_regular(path, true) {
            Ok(file) => Ok(Some(file)),
            Err(error) if error.is_not_found() => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Locks `file` and compares what it holds with the snapshot of `edit`.
    fn check(&self, edit: &Edit, mut file: File) -> Result<State, OpenError> {
        file.lock()?;
        let current = match read_limited(&mut file, self.limit) {
            Ok(bytes) => bytes,
            // It was within the limit at the preview, so it changed.
            Err(OpenError::TooLarge(_)) => return Ok(State::Stale),
            Err(error) => return Err(error),
        };
        Ok(if ContentHash::of(&current) == edit.snapshot.hash() {
            State::Ready { file, current }
        } else if current == edit.contents {
            State::Done
        } else {
            State::Stale
        })
        // A file not kept is closed here, which releases its lock.
    }

    fn write_all(&self, checked: &mut [Checked]) -> Result<(), WriteError> {
        let mut backups: Vec<NamedTempFile> = Vec::with_capacity(checked.len());
        for c in checked.iter() {
            let path = self.edits[c.index].snapshot.path();
            let backup =
                save_backup(path, &self.tag, &c.current).map_err(|error| WriteError::Write {
                    file: self.display(c.index).to_owned(),
                    source: io::Error::new(
                        error.kind(),
                        format!("cannot save a backup of it before writing: {error}"),
                    ),
                })?;
            backups.push(backup);
        }
        for k in 0..checked.len() {
            let edit = &self.edits[checked[k].index];
            let written = fault::check(edit.snapshot.path())
                .and_then(|()| overwrite(&mut checked[k].file, &edit.contents));
            if let Err(source) = written {
                return Err(self.restore(checked, k, backups, source));
            }
        }
        for (c, backup) in checked.iter().zip(backups) {
            // The new content is on disk: a backup that cannot be removed
            // loses nothing, so it does not fail the apply.
            if let Err(error) = backup.close() {
                tracing::warn!(
                    "could not remove the backup of {}: {error}",
                    self.display(c.index)
                );
            }
        }
        Ok(())
    }

    /// Writes the old content back into files `0..=failed` of `checked`
    /// after the write of `failed` failed with `source`.
    fn restore(
        &self,
        checked: &mut [Checked],
        failed: usize,
        backups: Vec<NamedTempFile>,
        source: io::Error,
    ) -> WriteError {
        let file = self.display(checked[failed].index).to_owned();
        let mut error = None;
        for (j, backup) in backups.into_iter().enumerate() {
            let c = &mut checked[j];
            if j <= failed
                && error.is_none()
                && let Err(restore_error) = overwrite(&mut c.file, &c.current)
            {
                let restored = self.display(c.index).to_owned();
                let backup = match backup.keep() {
                    Ok((_, path)) => path,
                    Err(kept) => kept.file.path().to_path_buf(),
                };
                error = Some((restored, restore_error, backup));
                continue;
            }
            let _ = backup.close();
        }
        match error {
            None => WriteError::Write { file, source },
            Some((restored, restore_error, backup)) => WriteError::Restore {
                file,
                source,
                restored,
                restore_error,
                backup,
            },
        }
    }

    fn display(&self, index: usize) -> &str {
        self.edits[index].snapshot.display()
    }
}

/// A file checked and locked, ready to write.
struct Checked {
    index: usize,
    file: File,
    current: Vec<u8>,
}

/// The files of one apply, by device and inode.
#[derive(Default)]
struct Identities {
    #[cfg(unix)]
    seen: std::collections::HashMap<(u64, u64), usize>,
}

impl Identities {
    /// Remembers `file` as the one at `index`; the index of an earlier
    /// path to the same file, if any.
    #[cfg(unix)]
    fn insert(&mut self, file: &File, index: usize) -> io::Result<Option<usize>> {
        use std::os::unix::fs::MetadataExt;
        let metadata = file.metadata()?;
        Ok(self.seen.insert((metadata.dev(), metadata.ino()), index))
    }

    #[cfg(not(unix))]
    fn insert(&mut self, _file: &File, _index: usize) -> io::Result<Option<usize>> {
        Ok(None)
    }
}

enum State {
    Ready { file: File, current: Vec<u8> },
    Done,
    Stale,
}

#[cfg(test)]
mod tests;
