//! Cleanup: applies past the configured count or age are dropped from the
//! log, and the store keeps only the objects the rest need.

use std::path::Path;

use crate::log::{self, LogLine};
use crate::{Store, UndoError};

impl Store {
    /// Drops applies beyond [`Limits::keep`](crate::Limits::keep) (the
    /// newest are kept) or older than its `max_age_days`, with their
    /// undos, then repacks the store with only what is still needed.
    ///
    /// # Errors
    ///
    /// The log or the objects cannot be read or rewritten.
    pub fn clean(&self) -> Result<(), UndoError> {
        let _locked = self.lock()?;
        clean(self)
    }
}

/// [`Store::clean`], with the store locked.
fn clean(store: &Store) -> Result<(), UndoError> {
    let lines = store.lines()?;
    let config = store.config();
    let oldest = chrono::Utc::now()
        - chrono::Duration::days(
            i64::try_from(config.max_age_days).unwrap_or(i64::MAX / 86_400_000),
        );
    let mut kept_applies = Vec::new();
    for line in lines.iter().rev() {
        if let LogLine::Apply(apply) = line {
            let recent =
                chrono::DateTime::parse_from_rfc3339(&apply.time).is_ok_and(|time| time >= oldest);
            if recent && kept_applies.len() < config.keep {
                kept_applies.push(apply.id);
            }
        }
    }
    let kept: Vec<LogLine> = lines
        .iter()
        .filter(|line| match line {
            LogLine::Apply(apply) => kept_applies.contains(&apply.id),
            LogLine::Undo(undo) => kept_applies.contains(&undo.undid),
        })
        .cloned()
        .collect();
    if kept.len() == lines.len() {
        return Ok(());
    }
    tracing::debug!(dropped = lines.len() - kept.len(), "undo store cleanup");
    log::rewrite(&store.log_path(), &kept)?;
    repack(store, &kept)
}

/// Rewrites the store's objects as one pack holding the trees of `kept`
/// and of the index (the last snapshot), and nothing else.
fn repack(store: &Store, kept: &[LogLine]) -> Result<(), UndoError> {
    let repo = store.repo();
    let mut builder = repo.packbuilder()?;
    for line in kept {
        if let LogLine::Apply(apply) = line {
            builder.insert_tree(git2::Oid::from_str(&apply.before)?)?;
            builder.insert_tree(git2::Oid::from_str(&apply.after)?)?;
        }
    }
    builder.insert_tree(repo.index()?.write_tree()?)?;
    let objects = repo.path().join("objects");
    let fresh = store.dir().join("objects.new");
    remove_dir(&fresh)?;
    std::fs::create_dir_all(&fresh).map_err(UndoError::io("create", &fresh))?;
    builder.write(&fresh, 0o644)?;
    let entries = std::fs::read_dir(&objects).map_err(UndoError::io("read", &objects))?;
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name != "info" {
            remove_dir(&entry.path())?;
        }
    }
    let pack = objects.join("pack");
    std::fs::rename(&fresh, &pack).map_err(UndoError::io("replace", &pack))?;
    Ok(repo.odb()?.refresh()?)
}

fn remove_dir(path: &Path) -> Result<(), UndoError> {
    match std::fs::remove_dir_all(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(UndoError::io("remove", path)(error))
        }
        _ => Ok(()),
    }
}
