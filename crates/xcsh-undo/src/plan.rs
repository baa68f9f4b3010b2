//! What undoing one apply would do, checked before anything is written.

use crate::beneath::{Blocked, Root};
use crate::log::LogLine;
use crate::ops::{PathOp, Plan};
use crate::{ChangeKind, FileMeta, FileState, Store, UndoError, names};

impl Store {
    /// The undo of apply `id` (the newest one not undone when `None`): its
    /// paths, and which of them changed since.
    ///
    /// # Errors
    ///
    /// Nothing to undo, an unknown or already undone id, a later apply not
    /// undone that changed some of the same files, or a file that cannot
    /// be read.
    pub fn plan(&self, id: Option<u64>) -> Result<Plan, UndoError> {
        let undoable = self.undoable()?;
        let apply = match id {
            None => match undoable.first() {
                Some(apply) => apply.clone(),
                None if self
                    .lines()?
                    .iter()
                    .any(|line| matches!(line, LogLine::Apply(_))) =>
                {
                    return Err(UndoError::AllUndone(self.cwd().to_owned()));
                }
                None => return Err(UndoError::NothingToUndo(self.cwd().to_owned())),
            },
            Some(id) => match undoable.iter().find(|apply| apply.id == id) {
                Some(apply) => apply.clone(),
                None => {
                    let known = self
                        .lines()?
                        .iter()
                        .any(|line| matches!(line, LogLine::Apply(apply) if apply.id == id));
                    return Err(if known {
                        UndoError::AlreadyUndone(id)
                    } else {
                        UndoError::UnknownId(id)
                    });
                }
            },
        };
        let touched: Vec<&str> = apply.changes.iter().flat_map(|c| c.paths()).collect();
        // Newest first: the first later apply found is the one to undo first.
        for later in undoable.iter().filter(|later| later.id > apply.id).rev() {
            let both: Vec<&str> = later
                .changes
                .iter()
                .flat_map(|c| c.paths())
                .filter(|path| touched.contains(path))
                .collect();
            if !both.is_empty() {
                return Err(UndoError::LaterApply {
                    later: later.id,
                    label: later.label.clone(),
                    paths: names::shown_list(both),
                });
            }
        }
        let mut ops = Vec::new();
        for change in &apply.changes {
            let op = |path: &str,
                      expect: &Option<FileState>,
                      restore: &Option<FileState>,
                      meta: Option<FileMeta>| PathOp {
                path: path.to_owned(),
                name: names::exact(self.repo(), &[&apply.before, &apply.after], path),
                expect: expect.clone(),
                restore: restore.clone(),
                meta: meta.filter(|_| restore.is_some()),
            };
            match (change.kind, &change.from) {
                (ChangeKind::Renamed, Some(from)) => {
                    ops.push(op(&change.path, &change.after, &None, None));
                    ops.push(op(from, &None, &change.before, change.before_meta));
                }
                _ => ops.push(op(
                    &change.path,
                    &change.after,
                    &change.before,
                    change.before_meta,
                )),
            }
        }
        ops.sort_by_key(|op| op.restore.is_some());
        let root = self.root()?;
        let (stale, linked) = check(&root, &ops)?;
        Ok(Plan {
            apply,
            ops,
            stale,
            linked,
        })
    }

    /// The working directory, open for an undo.
    pub(crate) fn root(&self) -> Result<Root, UndoError> {
        Root::open(self.cwd()).map_err(UndoError::io("open", self.cwd()))
    }
}

/// Paths changed since the apply, and paths behind a new link (each with
/// the link), in the log's text form.
pub(crate) type Checked = (Vec<String>, Vec<(String, String)>);

/// The paths of `ops` changed since the apply, and those a symbolic link
/// the snapshot did not have now leads through (each with the link), as
/// seen from `root` by descriptor.
pub(crate) fn check(root: &Root, ops: &[PathOp]) -> Result<Checked, UndoError> {
    let (mut stale, mut linked) = (Vec::new(), Vec::new());
    for op in ops {
        let now = match root.parent(&op.name, false) {
            Ok(Some(parent)) => parent.state(),
            Ok(None) => Ok(None),
            Err(blocked) => Err(blocked),
        };
        match now {
            Ok(now) if now != op.expect => stale.push(op.path.clone()),
            Ok(_) => {}
            Err(Blocked::Link(link)) => linked.push((op.path.clone(), link)),
            Err(Blocked::Io(path, source)) => {
                return Err(UndoError::Io {
                    what: "read",
                    path,
                    source,
                });
            }
        }
    }
    Ok((stale, linked))
}
