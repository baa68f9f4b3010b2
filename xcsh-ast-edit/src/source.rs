//! Reading a candidate file as source text, skipping what is not source.

use std::fmt;
use std::fs;
use std::path::Path;

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
    /// It is larger than [`MAX_FILE_BYTES`].
    TooLarge(u64),
    /// It is not valid UTF-8.
    NotUtf8,
    /// It could not be read.
    Unreadable(std::io::Error),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Binary => f.write_str("binary file"),
            Self::TooLarge(size) => write!(
                f,
                "file too large ({size} bytes, limit {MAX_FILE_BYTES} bytes)"
            ),
            Self::NotUtf8 => f.write_str("not UTF-8 text"),
            Self::Unreadable(error) => write!(f, "cannot read: {error}"),
        }
    }
}

/// Reads `path` as text.
///
/// # Errors
///
/// The [`SkipReason`] of a file that is binary, too large, not UTF-8 or
/// unreadable.
pub(crate) fn read_source(path: &Path) -> Result<String, SkipReason> {
    let size = fs::metadata(path).map_err(SkipReason::Unreadable)?.len();
    if size > MAX_FILE_BYTES {
        return Err(SkipReason::TooLarge(size));
    }
    let bytes = fs::read(path).map_err(SkipReason::Unreadable)?;
    if bytes.iter().take(BINARY_SNIFF_BYTES).any(|&b| b == 0) {
        return Err(SkipReason::Binary);
    }
    String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_binary_large_and_non_utf8_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            fs::write(&path, bytes).unwrap();
            path
        };
        let reason = |path: &Path| read_source(path).unwrap_err().to_string();

        assert_eq!(
            read_source(&file("ok.rs", b"fn a() {}")).unwrap(),
            "fn a() {}"
        );
        assert_eq!(reason(&file("bin.rs", b"fn\0a")), "binary file");
        assert_eq!(reason(&file("latin1.rs", b"// caf\xe9")), "not UTF-8 text");
        let big = vec![b'a'; MAX_FILE_BYTES as usize + 1];
        assert_eq!(
            reason(&file("big.rs", &big)),
            "file too large (2097153 bytes, limit 2097152 bytes)"
        );
        assert!(reason(&dir.path().join("missing.rs")).starts_with("cannot read: "));
    }
}
