//! Writing a locked file in place, with its old content saved beside it
//! while the write is under way.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::Path;

use tempfile::NamedTempFile;

/// Saves `original` (the content of the file at `path`) to
/// `.{name}.{tag}-backup-XXXXXX` beside it, readable only by its owner,
/// and flushes it: if the write that follows is interrupted (a crash, a
/// power cut), the old content is there.
pub(crate) fn save_backup(path: &Path, tag: &str, original: &[u8]) -> io::Result<NamedTempFile> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let mut backup = tempfile::Builder::new()
        .prefix(&format!(".{name}.{tag}-backup-"))
        .tempfile_in(dir)?;
    backup.write_all(original)?;
    backup.as_file().sync_all()?;
    Ok(backup)
}

/// Overwrites the locked `file` with `contents`, keeping its inode: hard
/// links, owner, group, mode, ACLs and extended attributes stay as they
/// are, which a write-and-rename would lose.
pub(crate) fn overwrite(file: &mut File, contents: &[u8]) -> io::Result<()> {
    file.seek(SeekFrom::Start(0))?;
    file.write_all(contents)?;
    file.set_len(contents.len() as u64)?;
    file.sync_all()
}
