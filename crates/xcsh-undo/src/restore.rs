//! Running an undo: files written back from the store, never by pack code.

use std::path::Path;

use crate::file_state::{EXECUTABLE, LINK};
use crate::log::{self, LogLine, UndoRecord};
use crate::{FileState, Plan, Store, UndoError};

impl Store {
    /// Undoes the apply of `plan`: every path back as it was before it.
    /// Refused, with nothing written, when a path changed since the apply
    /// (or since the plan was made) unless `force`. The undo is logged.
    ///
    /// # Errors
    ///
    /// [`UndoError::Stale`], or a file that cannot be written (files
    /// written before it stay written).
    pub fn undo(&self, plan: &Plan, force: bool, by: &str) -> Result<UndoRecord, UndoError> {
        let _locked = self.lock()?;
        let mut stale = Vec::new();
        for op in &plan.ops {
            if FileState::of(&self.cwd().join(&op.path))? != op.expect {
                stale.push(op.path.clone());
            }
        }
        if !stale.is_empty() && !force {
            return Err(UndoError::Stale {
                id: plan.apply.id,
                count: stale.len(),
                paths: stale.join(", "),
            });
        }
        let (mut restored, mut removed) = (Vec::new(), Vec::new());
        for op in &plan.ops {
            let path = self.cwd().join(&op.path);
            match &op.restore {
                None => {
                    remove(&path)?;
                    prune_empty_parents(self.cwd(), &path);
                    removed.push(op.path.clone());
                }
                Some(state) => {
                    self.write_back(&path, state)?;
                    restored.push(op.path.clone());
                }
            }
        }
        let record = UndoRecord {
            seq: log::last_seq(&self.log_path())? + 1,
            undid: plan.apply.id,
            time: log::now(),
            label: plan.apply.label.clone(),
            by: by.to_owned(),
            restored,
            removed,
            forced: force && !stale.is_empty(),
        };
        log::append(&self.log_path(), &LogLine::Undo(record.clone()))?;
        Ok(record)
    }

    /// Writes `state`'s blob to `path` with its mode.
    fn write_back(&self, path: &Path, state: &FileState) -> Result<(), UndoError> {
        let blob = self.repo().find_blob(state.oid()?)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(UndoError::io("create", parent))?;
        }
        if state.mode == LINK {
            remove(path)?;
            return link(path, blob.content());
        }
        // A regular file is written over in place (unlinking first costs
        // milliseconds a file on some file systems); anything else there
        // (a link, a directory) is removed first.
        let regular = std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file());
        if !regular {
            remove(path)?;
        }
        std::fs::write(path, blob.content()).map_err(UndoError::io("write", path))?;
        set_mode(path, state.mode == EXECUTABLE)
    }
}

/// Removes the file (or link) at `path`, if there is one.
fn remove(path: &Path) -> Result<(), UndoError> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(UndoError::io("read", path)(error)),
        Ok(meta) if meta.is_dir() => {
            std::fs::remove_dir_all(path).map_err(UndoError::io("remove", path))
        }
        Ok(_) => std::fs::remove_file(path).map_err(UndoError::io("remove", path)),
    }
}

/// Removes the directories above `path` left empty, up to `cwd`.
fn prune_empty_parents(cwd: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(current) = dir {
        if current == cwd || !current.starts_with(cwd) || std::fs::remove_dir(current).is_err() {
            break;
        }
        dir = current.parent();
    }
}

#[cfg(unix)]
fn link(path: &Path, target: &[u8]) -> Result<(), UndoError> {
    use std::os::unix::ffi::OsStrExt as _;
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), path)
        .map_err(UndoError::io("link", path))
}

#[cfg(not(unix))]
fn link(path: &Path, target: &[u8]) -> Result<(), UndoError> {
    std::fs::write(path, target).map_err(UndoError::io("write", path))
}

#[cfg(unix)]
fn set_mode(path: &Path, executable: bool) -> Result<(), UndoError> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(UndoError::io("set the mode of", path))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _executable: bool) -> Result<(), UndoError> {
    Ok(())
}
