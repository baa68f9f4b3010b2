//! Fresh copies of a pack library.
//!
//! A library is mapped once per file: `dlopen` of a path already open (or
//! of another name for the same inode) hands back the open library, and the
//! loader caches packs by canonical path and never unloads them. A load
//! benchmark therefore needs new files for every load it times: byte-for-byte
//! copies, each its own inode. The copies are written before the clock
//! starts, so they sit in the page cache and no disk read is timed.

use std::path::{Path, PathBuf};

use tempfile::TempDir;
use xcsh_loader::discover::pack_file_name;

/// `count` copies of one library in a private temporary directory, removed
/// on drop (a loaded copy stays mapped after its file is removed).
#[derive(Debug)]
pub struct PackCopies {
    dir: TempDir,
    paths: Vec<PathBuf>,
}

impl PackCopies {
    /// Copies `library` `count` times, as `lib<stem>_<i>.so` (or the OS's
    /// equivalent) in a new directory only the current user can write, as
    /// the loader's trust policy requires.
    ///
    /// # Panics
    ///
    /// On any I/O error.
    pub fn new(library: &Path, count: usize) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("xcsh-bench-packs-")
            .tempdir()
            .expect("create a directory for pack copies");
        let paths = (0..count)
            .map(|i| {
                let path = dir
                    .path()
                    .join(pack_file_name(&format!("bench_copy_{i:04}")));
                std::fs::copy(library, &path).expect("copy the pack library");
                path
            })
            .collect();
        Self { dir, paths }
    }

    /// Copies `library` `count` times, each under its own name
    /// (`NNNN/<library's file name>`) in a new directory only the current
    /// user can write: an isolated pack must be in a file named for it
    /// (`libxcsh_bench_pack.so`), so copies run isolated, checked by
    /// `xcsh pack add` or installed cannot be renamed. They are still
    /// told apart: a pack is mapped from a copy named for its file's path.
    ///
    /// # Panics
    ///
    /// On any I/O error.
    pub fn named_for_the_pack(library: &Path, count: usize) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("xcsh-bench-packs-")
            .tempdir()
            .expect("create a directory for pack copies");
        let name = library.file_name().expect("a library file name");
        let paths = (0..count)
            .map(|i| {
                let sub = dir.path().join(format!("{i:04}"));
                std::fs::create_dir(&sub).expect("create a directory for one copy");
                let path = sub.join(name);
                std::fs::copy(library, &path).expect("copy the pack library");
                path
            })
            .collect();
        Self { dir, paths }
    }

    /// The directory holding the copies.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The copies, sorted by name.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }
}
