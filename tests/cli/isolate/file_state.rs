//! Everything about a file a hostile pack could change without writing
//! it: mode, owner, times (the change time too, which any metadata change
//! moves), extended attributes and contents, to compare before and after.

use std::os::unix::fs::MetadataExt as _;
use std::path::Path;

/// A file's metadata, extended attributes and contents at one moment.
#[derive(Debug, PartialEq, Eq)]
pub struct FileState {
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub modified: (i64, i64),
    pub changed: (i64, i64),
    pub xattrs: Vec<(String, Vec<u8>)>,
    pub contents: Vec<u8>,
}

impl FileState {
    /// The state of `path` now.
    pub fn of(path: &Path) -> Self {
        let meta = std::fs::symlink_metadata(path).unwrap();
        Self {
            mode: meta.mode(),
            uid: meta.uid(),
            gid: meta.gid(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
            xattrs: xattrs(path),
            contents: std::fs::read(path).unwrap(),
        }
    }
}

/// The extended attributes of `path` the caller may read, by name.
pub fn xattrs(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut names = vec![0u8; 64 * 1024];
    let len = rustix::fs::listxattr(path, &mut names[..]).unwrap();
    let mut all: Vec<(String, Vec<u8>)> = names[..len]
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| {
            let name = String::from_utf8(name.to_vec()).unwrap();
            let mut value = vec![0u8; 64 * 1024];
            let len = rustix::fs::getxattr(path, name.as_str(), &mut value[..]).unwrap();
            value.truncate(len);
            (name, value)
        })
        .collect();
    all.sort();
    all
}

/// Sets the extended attribute `name` of `path` to `value`.
pub fn set_xattr(path: &Path, name: &str, value: &str) {
    rustix::fs::setxattr(
        path,
        name,
        value.as_bytes(),
        rustix::fs::XattrFlags::empty(),
    )
    .unwrap();
}
