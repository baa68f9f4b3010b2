//! An undo made ready: the paths it puts back, and which changed since.

use crate::log::ApplyRecord;
use crate::{FileMeta, FileState};

/// One path an undo puts back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathOp {
    /// The path, relative to the working directory, in the log's text
    /// form (`xcsh_safe_fs::name::as_text`: each byte that is not part of
    /// valid UTF-8 as `\xNN`).
    pub path: String,
    /// The path's exact bytes: what `path` stands for.
    pub name: std::path::PathBuf,
    /// What the apply left there (`None`: nothing); anything else means the
    /// file changed since.
    pub expect: Option<FileState>,
    /// What goes back (`None`: the file is removed).
    pub restore: Option<FileState>,
    /// The mode, owner, group and modification time that go back with
    /// it, as the snapshot before the apply saw them (`None`: a record of
    /// an earlier version; mode 644 or 755 then).
    pub meta: Option<FileMeta>,
}

/// The undo of one apply, ready to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The apply.
    pub apply: ApplyRecord,
    /// Every path put back, removals first.
    pub ops: Vec<PathOp>,
    /// Paths changed since the apply (not overwritten without `--force`),
    /// in the log's text form.
    pub stale: Vec<String>,
    /// Paths reached now through a symbolic link the snapshot did not
    /// have, each with the link (relative): never restored, `--force` or
    /// not.
    pub linked: Vec<(String, String)>,
}
