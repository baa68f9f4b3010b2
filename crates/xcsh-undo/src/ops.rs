//! An undo made ready: the paths it puts back, and which changed since.

use crate::FileState;
use crate::log::ApplyRecord;

/// One path an undo puts back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathOp {
    /// The path, relative to the working directory.
    pub path: String,
    /// What the apply left there (`None`: nothing); anything else means the
    /// file changed since.
    pub expect: Option<FileState>,
    /// What goes back (`None`: the file is removed).
    pub restore: Option<FileState>,
}

/// The undo of one apply, ready to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The apply.
    pub apply: ApplyRecord,
    /// Every path put back, removals first.
    pub ops: Vec<PathOp>,
    /// Paths changed since the apply (not overwritten without `--force`).
    pub stale: Vec<String>,
}
