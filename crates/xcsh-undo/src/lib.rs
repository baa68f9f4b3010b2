//! Undo for xcsh: a snapshot of the working directory around every apply,
//! and the restore behind `xcsh undo`.
//!
//! Each working directory gets a shadow git repository of its own in the
//! user's state directory ([`Store`]), on libgit2 (`git2`): its index keeps
//! each file's stamp (size, times, inode) as git's does, so a snapshot
//! re-reads only files whose stamp changed, and only changed contents are
//! stored. [`UndoObserver`] plugs into the session's
//! [`ApplyObserver`](xcsh_core::ApplyObserver) hook: it snapshots before
//! and after every apply, whoever produced the action, and records what
//! changed in the store's log. [`Store::plan`] and [`Store::undo`] restore
//! an apply's files from the store alone: undo never runs pack code.
//!
//! Files the working directory's `.gitignore` files ignore, the `.xcsh/`
//! directory and files over [`Limits::max_file_bytes`] are not
//! snapshotted (see `docs/undo.md`).
//!
//! Front ends depend on this crate; tool packs never do.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(unix)]
mod beneath;
mod changes;
mod dirty;
mod error;
mod file_state;
mod limits;
mod log;
mod meta;
mod names;
mod observer;
mod ops;
mod plan;
mod reminder;
mod restore;
mod retention;
mod store;
mod watch;

pub use changes::{Change, ChangeKind};
pub use error::UndoError;
pub use file_state::FileState;
pub use limits::{DEFAULT_KEEP, DEFAULT_MAX_AGE_DAYS, DEFAULT_MAX_FILE_BYTES, Limits};
pub use log::{ApplyRecord, LogLine, UndoRecord};
pub use meta::FileMeta;
pub use names::shown;
pub use observer::UndoObserver;
pub use ops::{PathOp, Plan};
pub use reminder::reminder;
pub use store::Store;
