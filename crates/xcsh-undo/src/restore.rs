//! Running an undo: files written back from the store, never by pack code,
//! by descriptor from the working directory's root (see
//! [`beneath`](crate::beneath)).

use crate::beneath::Blocked;
use crate::file_state::{EXECUTABLE, LINK};
use crate::log::{self, LogLine, UndoRecord};
use crate::{Plan, Store, UndoError};

impl Store {
    /// Undoes the apply of `plan`: every path back as it was before it,
    /// content, mode, owner and modification time (the owner where this
    /// user may set it). Refused, with nothing written, when a path
    /// changed since the apply (or since the plan was made) unless
    /// `force`, and whatever `force` says when a symbolic link the
    /// snapshot did not have now lies on the way to a path. The undo is
    /// logged.
    ///
    /// # Errors
    ///
    /// [`UndoError::Linked`], [`UndoError::Stale`], or a file that cannot
    /// be written (files written before it stay written).
    pub fn undo(&self, plan: &Plan, force: bool, by: &str) -> Result<UndoRecord, UndoError> {
        let _locked = self.lock()?;
        let root = self.root()?;
        let (stale, linked) = crate::plan::check(&root, &plan.ops)?;
        if !linked.is_empty() {
            return Err(UndoError::linked(&linked));
        }
        if !stale.is_empty() && !force {
            return Err(UndoError::Stale {
                id: plan.apply.id,
                count: stale.len(),
                paths: crate::names::shown_list(stale.iter().map(String::as_str)),
            });
        }
        let (mut restored, mut removed) = (Vec::new(), Vec::new());
        for op in &plan.ops {
            // Checked above; a link swapped in since is refused here too.
            let blocked = |blocked| match blocked {
                Blocked::Link(link) => UndoError::linked(&[(op.path.clone(), link)]),
                Blocked::Io(path, source) => UndoError::Io {
                    what: "write",
                    path,
                    source,
                },
            };
            match &op.restore {
                None => {
                    if let Some(parent) = root.parent(&op.name, false).map_err(blocked)? {
                        parent.remove().map_err(blocked)?;
                        root.prune_empty_parents(&op.name);
                    }
                    removed.push(op.path.clone());
                }
                Some(state) => {
                    let blob = self.repo().find_blob(state.oid()?)?;
                    let parent = root
                        .parent(&op.name, true)
                        .map_err(blocked)?
                        .expect("directories on the way are created");
                    if state.mode == LINK {
                        parent.link(blob.content()).map_err(blocked)?;
                    } else {
                        parent
                            .write(blob.content(), state.mode == EXECUTABLE, op.meta.as_ref())
                            .map_err(blocked)?;
                    }
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
}
