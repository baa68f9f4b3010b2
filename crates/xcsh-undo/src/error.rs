//! What can go wrong snapshotting or undoing.

use std::path::PathBuf;

use xcsh_safe_fs::name::shown;

use crate::names;

/// An undo store error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UndoError {
    /// The shadow repository could not be opened, read or written.
    #[error("undo store: {0}")]
    Git(#[from] git2::Error),
    /// A file of the store or the working directory could not be read or
    /// written.
    #[error("cannot {what} {}: {source}", shown(path))]
    Io {
        /// The step that failed, e.g. `write`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A line of the store's log is not a record.
    #[error("undo log {}: line {line}: {message}", shown(path))]
    BadLog {
        /// The log file.
        path: PathBuf,
        /// The line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// No apply of this directory has a snapshot.
    #[error("Nothing to undo: no apply in {} has a snapshot.", shown(.0))]
    NothingToUndo(PathBuf),
    /// Every apply of this directory with a snapshot was undone.
    #[error("Nothing to undo: every apply in {} was undone (xcsh undo --list shows them).", shown(.0))]
    AllUndone(PathBuf),
    /// No apply with this id.
    #[error("No apply {0} to undo here (xcsh undo --list shows them).")]
    UnknownId(u64),
    /// That apply was undone before.
    #[error("Apply {0} was already undone.")]
    AlreadyUndone(u64),
    /// A later apply, not undone, changed some of the same files.
    #[error(
        "Undo refused: apply {later} (\"{label}\") came later and changed the same files: {paths}. Undo it first."
    )]
    LaterApply {
        /// The later apply's id.
        later: u64,
        /// Its label.
        label: String,
        /// The files both changed, comma-separated, as people read them
        /// (`\xff.rs`).
        paths: String,
    },
    /// Files changed since the apply; nothing was restored.
    #[error("Undo refused: {count} file{s} changed since apply {id}: {paths}. Nothing was restored; --force restores them anyway.", s = if *.count == 1 { "" } else { "s" })]
    Stale {
        /// The apply's id.
        id: u64,
        /// How many files.
        count: usize,
        /// The files, comma-separated, as people read them (`\xff.rs`).
        paths: String,
    },
    /// A directory on the way to some of the paths is now a symbolic link,
    /// which no snapshot has: restoring them could write outside the
    /// working directory. Nothing was restored.
    #[error(
        "Undo refused: cannot restore {paths} safely: {links} {verb} now a symbolic link, not the directory the snapshot recorded. Nothing was restored, with or without --force; put the directory back and undo again.",
        verb = if *.plural { "are" } else { "is" }
    )]
    Linked {
        /// The paths, comma-separated, as people read them (`\xff.rs`).
        paths: String,
        /// The links on their way, comma-separated, as people read them.
        links: String,
        /// More than one link.
        plural: bool,
    },
}

impl UndoError {
    /// [`UndoError::Linked`] for `linked` (each path with its link, in
    /// the log's text form).
    pub(crate) fn linked(linked: &[(String, String)]) -> Self {
        let mut links: Vec<&str> = linked.iter().map(|(_, link)| link.as_str()).collect();
        links.dedup();
        Self::Linked {
            paths: names::shown_list(linked.iter().map(|(path, _)| path.as_str())),
            plural: links.len() > 1,
            links: names::shown_list(links),
        }
    }

    pub(crate) fn io(
        what: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { what, path, source }
    }
}
