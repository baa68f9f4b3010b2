//! Opening a file only if it is a regular file, without ever blocking, and
//! reading it with a size limit.
//!
//! A named pipe, a device such as `/dev/zero` or `/dev/stdin`, or a socket
//! is refused before a byte is read, so it can neither hang a tool nor
//! feed it without end. Sizes are counted in bytes actually read, never
//! taken from what the file system reports: files under `/proc` report 0
//! and still have content.

use std::fs::{self, File, FileType, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

/// Why a file could not be opened or read as a regular file.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// It is a named pipe, a device, a socket or a directory.
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    /// More than the limit could be read from it.
    #[error("file too large (more than {0} bytes)")]
    TooLarge(u64),
    /// It could not be opened or read.
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl OpenError {
    /// True if the file is not there (any more).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Io(error) if error.kind() == io::ErrorKind::NotFound)
    }
}

/// Opens `path` for reading (and writing, with `write`) only if it is a
/// regular file, without ever blocking in `open`.
///
/// The type is checked on the path first, so a device is not even opened
/// (opening some has side effects), then again on the opened file, so a
/// file swapped in between is caught too. On Unix the open is
/// non-blocking (a named pipe without a writer would block forever) and
/// never makes a terminal the controlling one; with `write` it also refuses
/// to follow a symlink in the last component.
///
/// # Errors
///
/// [`OpenError::NotRegular`] naming what the path is, or
/// [`OpenError::Io`] with the I/O failure.
pub fn open_regular(path: &Path, write: bool) -> Result<File, OpenError> {
    check_regular(fs::metadata(path)?.file_type())?;
    let mut options = OpenOptions::new();
    options.read(true).write(write);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if write { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | nofollow);
    }
    let file = options.open(path)?;
    check_regular(file.metadata()?.file_type())?;
    Ok(file)
}

/// Reads at most `limit` + 1 bytes from the current position.
///
/// # Errors
///
/// [`OpenError::TooLarge`] when there is more than `limit`, or the read's
/// I/O failure.
pub fn read_limited(file: &mut File, limit: u64) -> Result<Vec<u8>, OpenError> {
    let mut bytes = Vec::new();
    file.by_ref().take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(OpenError::TooLarge(limit));
    }
    Ok(bytes)
}

fn check_regular(kind: FileType) -> Result<(), OpenError> {
    if kind.is_file() {
        return Ok(());
    }
    Err(OpenError::NotRegular(describe(kind)))
}

/// What a file that is not a regular file is, for messages: `a named
/// pipe`, `a character device`, `a block device`, `a socket`, `a
/// directory`, else `a special file`.
pub fn describe(kind: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}
