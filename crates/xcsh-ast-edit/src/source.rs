//! Reading a candidate file as source text, skipping what is not source.
//!
//! Only regular files are read, and they are opened without blocking: a
//! named pipe, a device such as `/dev/zero` or `/dev/stdin`, or a socket is
//! refused before a byte is read, so it can neither hang the agent nor feed
//! it without end. Sizes are counted in bytes actually read (at most
//! [`MAX_FILE_BYTES`] + 1), never taken from what the file system reports:
//! files under `/proc` report 0 and still have content.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::Path;

use xcsh_safe_fs::OpenError;

/// Files larger than this are skipped: hand-written source is rarely this
/// big, generated or vendored blobs often are.
pub const MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;

/// How much of a file is checked for NUL bytes (as git and ripgrep do).
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Why a file was not searched.
#[derive(Debug)]
pub(crate) enum SkipReason {
    /// It contains NUL bytes.
    Binary,
    /// More than [`MAX_FILE_BYTES`] could be read from it.
    TooLarge,
    /// It is not valid UTF-8.
    NotUtf8,
    /// It is a named pipe, a device, a socket or a directory.
    NotRegular(&'static str),
    /// It could not be opened or read.
    Unreadable(io::Error),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Binary => f.write_str("binary file"),
            Self::TooLarge => write!(f, "file too large (more than {MAX_FILE_BYTES} bytes)"),
            Self::NotUtf8 => f.write_str("not UTF-8 text"),
            Self::NotRegular(kind) => write!(f, "not a regular file ({kind})"),
            Self::Unreadable(error) => write!(f, "cannot read: {error}"),
        }
    }
}

impl From<io::Error> for SkipReason {
    fn from(error: io::Error) -> Self {
        Self::Unreadable(error)
    }
}

/// Reads `path` as text.
///
/// # Errors
///
/// The [`SkipReason`] of a file that is not a regular file, binary, too
/// large, not UTF-8 or unreadable.
pub(crate) fn read_source(path: &Path) -> Result<String, SkipReason> {
    let mut file = open_regular(path, false)?;
    let bytes = read_limited(&mut file)?;
    if bytes.iter().take(BINARY_SNIFF_BYTES).any(|&b| b == 0) {
        return Err(SkipReason::Binary);
    }
    String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)
}

/// Opens `path` for reading (and writing, with `write`) only if it is a
/// regular file, without ever blocking in `open` (see
/// [`xcsh_safe_fs::open_regular`]).
pub(crate) fn open_regular(path: &Path, write: bool) -> Result<File, SkipReason> {
    xcsh_safe_fs::open_regular(path, write).map_err(SkipReason::from)
}

/// Reads at most [`MAX_FILE_BYTES`] + 1 bytes from the current position.
///
/// # Errors
///
/// [`SkipReason::TooLarge`] when there is more than the limit, or the
/// read's I/O failure.
pub(crate) fn read_limited(file: &mut File) -> Result<Vec<u8>, SkipReason> {
    xcsh_safe_fs::read_limited(file, MAX_FILE_BYTES).map_err(SkipReason::from)
}

impl From<OpenError> for SkipReason {
    fn from(error: OpenError) -> Self {
        match error {
            OpenError::NotRegular(kind) => Self::NotRegular(kind),
            OpenError::TooLarge(_) => Self::TooLarge,
            OpenError::Io(error) => Self::Unreadable(error),
        }
    }
}

#[cfg(test)]
mod tests;
