//! The shadow repository of one working directory and its log.

use std::fs::File;
use std::path::{Path, PathBuf};

use git2::{Delta, DiffOptions, Oid, Repository, RepositoryInitOptions};
use sha2::{Digest as _, Sha256};
use xcsh_core::ApplyInfo;

use crate::log::{self, ApplyRecord, LogLine};
use crate::{UndoConfig, UndoError};

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
    config: UndoConfig,
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
    pub fn open(root: &Path, cwd: &Path, config: UndoConfig) -> Result<Self, UndoError> {
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

    pub(crate) fn config(&self) -> &UndoConfig {
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

    /// Records the working directory as it is now and returns the tree.
    /// Only files whose stamp differs from the last snapshot's are read;
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
        let limit = self.config.max_file_bytes();
        for path in changed {
            let full = self.cwd.join(&path);
            let too_large = std::fs::symlink_metadata(&full)
                .is_ok_and(|meta| meta.is_file() && meta.len() > limit);
            if too_large {
                tracing::debug!(path = %path.display(), "over the size limit: not snapshotted");
                let _ = index.remove_path(&path);
            } else if let Err(error) = index.add_path(&path) {
                tracing::warn!(
                    "undo snapshot leaves out {}: {}",
                    path.display(),
                    error.message()
                );
                let _ = index.remove_path(&path);
            }
        }
        index.write()?;
        Ok(index.write_tree()?)
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

    /// The next number of the log's sequence.
    pub(crate) fn next_seq(lines: &[LogLine]) -> u64 {
        lines.iter().map(LogLine::seq).max().unwrap_or(0) + 1
    }

    /// Records an apply whose snapshots are `before` and `after`; `None`
    /// (nothing recorded) when it changed nothing the store sees. Applies
    /// past the retention limits are dropped.
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
    ) -> Result<Option<u64>, UndoError> {
        if before == after {
            return Ok(None);
        }
        let changes = crate::changes::between(&self.repo, before, after)?;
        let lines = self.lines()?;
        let record = ApplyRecord {
            id: Self::next_seq(&lines),
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
        if let Err(error) = crate::retention::clean(self) {
            tracing::warn!("undo store cleanup failed: {error}");
        }
        Ok(Some(id))
    }
}
