//! The shadow repository of one working directory and its log.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};

use git2::{Delta, DiffOptions, Index, Oid, Repository, RepositoryInitOptions};
use sha2::{Digest as _, Sha256};
use xcsh_core::ApplyInfo;

use crate::log::{self, ApplyRecord, LogLine, UndoRecord};
use crate::{FileMeta, Limits, UndoError};

/// What the shadow repository never records, besides `.gitignore`d files:
/// xcsh's own directory (the journal, the project config).
const EXCLUDE: &str = "/.xcsh/\n";

/// The undo store of one working directory: a shadow git repository in the
/// user's state directory whose work tree is that directory, and the log of
/// its applies and undos.
pub struct Store {
    cwd: PathBuf,
    dir: PathBuf,
    repo: Repository,
    config: Limits,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("cwd", &self.cwd)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// Held while a process reads or writes a store; released when dropped.
#[derive(Debug)]
pub(crate) struct Locked(File);

impl Drop for Locked {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl Store {
    /// The store directory of working directory `cwd` under `root` (the
    /// user's `…/state/xcsh/undo`): one per directory, named by a hash of
    /// its path.
    pub fn dir_for(root: &Path, cwd: &Path) -> PathBuf {
        let canonical = cwd.canonicalize().unwrap_or_else(|_| cwd.to_owned());
        let hash = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
        let name: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
        root.join(name)
    }

    /// Opens (creating on first use) the store of `cwd` under `root`.
    ///
    /// # Errors
    ///
    /// The store cannot be created or opened.
    pub fn open(root: &Path, cwd: &Path, config: Limits) -> Result<Self, UndoError> {
        let cwd = cwd.canonicalize().map_err(UndoError::io("read", cwd))?;
        let dir = Self::dir_for(root, &cwd);
        let git_dir = dir.join("repo.git");
        // A bare repository given its work tree on each open: nothing (no
        // `.git` link) is ever written into the working directory.
        let repo = if git_dir.join("HEAD").exists() {
            Repository::open_bare(&git_dir)?
        } else {
            std::fs::create_dir_all(&dir).map_err(UndoError::io("create", &dir))?;
            let mut options = RepositoryInitOptions::new();
            options.bare(true).mkpath(true);
            let repo = Repository::init_opts(&git_dir, &options)?;
            let mut config = repo.config()?;
            config.set_bool("core.autocrlf", false)?;
            config.set_bool("core.filemode", true)?;
            config.set_bool("core.symlinks", true)?;
            let info = git_dir.join("info");
            std::fs::create_dir_all(&info).map_err(UndoError::io("create", &info))?;
            let exclude = info.join("exclude");
            std::fs::write(&exclude, EXCLUDE).map_err(UndoError::io("write", &exclude))?;
            let named = dir.join("directory");
            std::fs::write(&named, cwd.as_os_str().as_encoded_bytes())
                .map_err(UndoError::io("write", &named))?;
            repo
        };
        repo.set_workdir(&cwd, false)?;
        Ok(Self {
            cwd,
            dir,
            repo,
            config,
        })
    }

    /// The working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn repo(&self) -> &Repository {
        &self.repo
    }

    pub(crate) fn config(&self) -> &Limits {
        &self.config
    }

    pub(crate) fn log_path(&self) -> PathBuf {
        self.dir.join("log.jsonl")
    }

    /// Takes the store's lock, waiting for another process holding it.
    pub(crate) fn lock(&self) -> Result<Locked, UndoError> {
        let path = self.dir.join("lock");
        let file = File::create(&path).map_err(UndoError::io("create", &path))?;
        file.lock().map_err(UndoError::io("lock", &path))?;
        Ok(Locked(file))
    }

    /// Records the working directory as it is now and returns the tree,
    /// comparing every file's stamp (size, times, inode, mode) with the
    /// index's as git does: only files whose stamp changed are read, and
    /// only new contents are stored. Ignored files, `.xcsh/` and files over
    /// the size limit are left out; a file that cannot be read is left out
    /// with a warning.
    ///
    /// # Errors
    ///
    /// The index or a tree cannot be read or written.
    pub fn snapshot(&self) -> Result<Oid, UndoError> {
        let mut index = self.repo.index()?;
        let mut options = DiffOptions::new();
        options
            .include_untracked(true)
            .recurse_untracked_dirs(true)
            .include_typechange(true)
            .ignore_submodules(true)
            .update_index(true);
        let diff = self
            .repo
            .diff_index_to_workdir(Some(&index), Some(&mut options))?;
        let (mut gone, mut changed) = (Vec::new(), Vec::new());
        for delta in diff.deltas() {
            let file = match delta.status() {
                Delta::Deleted => &mut gone,
                Delta::Unmodified | Delta::Ignored | Delta::Unreadable => continue,
                _ => &mut changed,
            };
            if let Some(path) = delta.new_file().path().or(delta.old_file().path()) {
                file.push(path.to_owned());
            }
        }
        drop(diff);
        for path in gone {
            index.remove_path(&path)?;
        }
        for path in changed {
            if self.ignored(&path) {
                let _ = index.remove_path(&path);
            } else {
                self.add(&mut index, &path);
            }
        }
        Ok(index.write_tree()?)
    }

    /// [`snapshot`](Self::snapshot) of only `paths` (relative; a directory
    /// stands for everything under it), the paths a watcher saw change
    /// since the last snapshot: each is read again whatever its stamp.
    ///
    /// # Errors
    ///
    /// The index or a tree cannot be read or written.
    pub(crate) fn snapshot_paths(&self, paths: &BTreeSet<PathBuf>) -> Result<Oid, UndoError> {
        let mut index = self.repo.index()?;
        for rel in paths {
            if crate::watch::is_own(rel) {
                continue;
            }
            let full = self.cwd.join(rel);
            match std::fs::symlink_metadata(&full) {
                Ok(meta) if meta.is_dir() => {
                    index.remove_dir(rel, 0)?;
                    self.add_tree(&mut index, rel);
                }
                Ok(_) if self.ignored(rel) => {
                    let _ = index.remove_path(rel);
                }
                Ok(_) => self.add(&mut index, rel),
                Err(_) => {
                    let _ = index.remove_path(rel);
                    index.remove_dir(rel, 0)?;
                }
            }
        }
        Ok(index.write_tree()?)
    }

    /// Adds every file under directory `rel` (but ignored ones) to `index`.
    fn add_tree(&self, index: &mut Index, rel: &Path) {
        let mut stack = vec![rel.to_owned()];
        while let Some(dir) = stack.pop() {
            if crate::watch::is_own(&dir) || self.ignored(&dir) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(self.cwd.join(&dir)) else {
                continue;
            };
            for entry in entries.flatten() {
                let child = dir.join(entry.file_name());
                match entry.file_type() {
                    Ok(kind) if kind.is_dir() => stack.push(child),
                    Ok(_) if !self.ignored(&child) => self.add(index, &child),
                    _ => {}
                }
            }
        }
    }

    /// Whether the snapshot leaves `rel` out: the working directory's
    /// ignore rules, `.xcsh/` and `.git` directories, nested repositories.
    pub(crate) fn ignored(&self, rel: &Path) -> bool {
        crate::watch::is_own(rel)
            || self.repo.is_path_ignored(rel).unwrap_or(false)
            || crate::watch::in_nested_repository(&self.cwd, rel)
    }

    /// Puts `rel`'s content and stamp in `index`, or leaves it out (over
    /// the size limit, unreadable).
    fn add(&self, index: &mut Index, rel: &Path) {
        let limit = self.config.max_file_bytes;
        let too_large = std::fs::symlink_metadata(self.cwd.join(rel))
            .is_ok_and(|meta| meta.is_file() && meta.len() > limit);
        if too_large {
            tracing::debug!(path = %xcsh_safe_fs::name::shown(rel), "over the size limit: not snapshotted");
            let _ = index.remove_path(rel);
        } else if let Err(error) = index.add_path(rel) {
            if error.code() != git2::ErrorCode::NotFound {
                tracing::warn!(
                    "undo snapshot leaves out {}: {}",
                    xcsh_safe_fs::name::shown(rel),
                    error.message()
                );
            }
            let _ = index.remove_path(rel);
        }
    }

    /// Writes the index (the stamps of the last snapshot) to the store.
    ///
    /// # Errors
    ///
    /// It cannot be written.
    pub(crate) fn write_index(&self) -> Result<(), UndoError> {
        // Every writer holds the store's lock: a lock file of git's found
        // now was left by a process that died writing.
        let stale = self.repo.path().join("index.lock");
        if stale.exists() {
            std::fs::remove_file(&stale).map_err(UndoError::io("remove", &stale))?;
        }
        Ok(self.repo.index()?.write()?)
    }

    /// Every line of the log.
    ///
    /// # Errors
    ///
    /// The log cannot be read or has a bad line.
    pub fn lines(&self) -> Result<Vec<LogLine>, UndoError> {
        log::read(&self.log_path())
    }

    /// The applies that can be undone (not undone yet), newest first.
    ///
    /// # Errors
    ///
    /// The log cannot be read.
    pub fn undoable(&self) -> Result<Vec<ApplyRecord>, UndoError> {
        let lines = self.lines()?;
        let undone: Vec<u64> = lines
            .iter()
            .filter_map(|line| match line {
                LogLine::Undo(undo) => Some(undo.undid),
                LogLine::Apply(_) => None,
            })
            .collect();
        let mut applies: Vec<ApplyRecord> = lines
            .into_iter()
            .filter_map(|line| match line {
                LogLine::Apply(apply) if !undone.contains(&apply.id) => Some(apply),
                _ => None,
            })
            .collect();
        applies.reverse();
        Ok(applies)
    }

    /// Every apply of the log, newest first, each with its undo when it was
    /// undone (`xcsh undo --list` shows both kinds).
    ///
    /// # Errors
    ///
    /// The log cannot be read.
    pub fn history(&self) -> Result<Vec<(ApplyRecord, Option<UndoRecord>)>, UndoError> {
        let lines = self.lines()?;
        let mut undos: Vec<UndoRecord> = lines
            .iter()
            .filter_map(|line| match line {
                LogLine::Undo(undo) => Some(undo.clone()),
                LogLine::Apply(_) => None,
            })
            .collect();
        let mut history: Vec<(ApplyRecord, Option<UndoRecord>)> = lines
            .into_iter()
            .filter_map(|line| match line {
                LogLine::Apply(apply) => {
                    let undo = undos
                        .iter()
                        .position(|undo| undo.undid == apply.id)
                        .map(|at| undos.swap_remove(at));
                    Some((apply, undo))
                }
                LogLine::Undo(_) => None,
            })
            .collect();
        history.reverse();
        Ok(history)
    }

    /// Records an apply whose snapshots are `before` and `after`; `None`
    /// (nothing recorded) when it changed nothing the store sees.
    /// `before_meta` tells each changed path's metadata at `before`.
    ///
    /// # Errors
    ///
    /// The trees cannot be compared or the log written.
    pub fn record_apply(
        &self,
        apply: &ApplyInfo<'_>,
        before: Oid,
        after: Oid,
        applied: bool,
        before_meta: &dyn Fn(&Path) -> Option<FileMeta>,
    ) -> Result<Option<u64>, UndoError> {
        if before == after {
            return Ok(None);
        }
        let mut changes = crate::changes::between(&self.repo, before, after)?;
        for change in &mut changes {
            if change.before.is_some() {
                let stored = change.from.as_deref().unwrap_or(&change.path);
                let name = crate::names::exact(&self.repo, &[&before.to_string()], stored);
                change.before_meta = before_meta(&name);
            }
        }
        let record = ApplyRecord {
            id: log::last_seq(&self.log_path())? + 1,
            time: log::now(),
            label: apply.label.to_owned(),
            tool: apply.tool.to_owned(),
            source_tool_name: apply.source_tool_name.to_owned(),
            policy: apply.policy,
            applied,
            before: before.to_string(),
            after: after.to_string(),
            changes,
        };
        let id = record.id;
        log::append(&self.log_path(), &LogLine::Apply(record))?;
        Ok(Some(id))
    }
}
