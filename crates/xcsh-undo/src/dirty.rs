//! What a watcher saw change since its last drain.

use std::collections::BTreeSet;
use std::path::PathBuf;

/// What changed since the last drain.
#[derive(Debug)]
pub(crate) enum Dirty {
    /// Unknown (the event queue overflowed, a read failed): compare every
    /// file.
    All,
    /// These paths, relative to the working directory; a directory stands
    /// for everything under it.
    Paths(BTreeSet<PathBuf>),
}
