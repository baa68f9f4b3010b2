//! Paths as people read them and as tools are given them back.
//!
//! On Unix a file name is bytes, not text. A tool shows a name with
//! [`shown`] (each byte that is not part of valid UTF-8 as `\xNN`, control
//! characters escaped), and takes back what it showed with [`given`]: the
//! name literally when something exists there, else with its `\xNN`
//! escapes of bytes 0x80 and above turned back into those bytes. The
//! escaping is xcsh-text's, the one every xcsh front end prints.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// `path` as people read it: valid UTF-8 with its control characters
/// escaped (`\n`, `\u{1b}`), each byte that is not part of valid UTF-8 as
/// `\xNN` (two lowercase hex digits). Also the form for a JSON string.
///
/// ```
/// # #[cfg(unix)] {
/// use std::os::unix::ffi::OsStrExt;
/// let name = std::path::Path::new(std::ffi::OsStr::from_bytes(b"caf\xe9/\xff.txt"));
/// assert_eq!(xcsh_safe_fs::name::shown(name), r"caf\xe9/\xff.txt");
/// # }
/// ```
pub fn shown(path: &Path) -> Cow<'_, str> {
    xcsh_text::escape::path(path)
}

/// `path` as text with nothing but its bytes that are not valid UTF-8
/// written as `\xNN`: what a tool works on when it must treat a name as
/// text (a rename rule), turned back into the name with [`from_text`].
pub fn as_text(path: &Path) -> Cow<'_, str> {
    xcsh_text::escape::path_bytes_only(path)
}

/// The path `text` ([`as_text`]'s form) stands for: its `\xNN` escapes of
/// bytes 0x80 and above as those bytes, everything else as it is.
pub fn from_text(text: &str) -> PathBuf {
    xcsh_text::escape::unescape_path(text).unwrap_or_else(|| PathBuf::from(text))
}

/// The path a tool was given as `path` (relative to `root`, or absolute):
/// `path` itself when something exists at it (a link counts, dangling or
/// not) or it has no `\xNN` escape of a byte 0x80 or above; else the path
/// with those escapes turned into their bytes, as [`shown`] printed it.
/// So a tool accepts every name it printed, and a file really named with a
/// backslash is still found by its own name. The answer is relative if
/// `path` was.
pub fn given(root: &Path, path: impl AsRef<Path>) -> PathBuf {
    let path = path.as_ref();
    let literal = || path.to_path_buf();
    let Some(text) = path.to_str() else {
        return literal();
    };
    match xcsh_text::escape::unescape_path(text) {
        Some(decoded) if root.join(path).symlink_metadata().is_err() => decoded,
        _ => literal(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::ffi::OsStrExt as _;

    use super::*;

    fn raw(bytes: &[u8]) -> PathBuf {
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }

    #[test]
    fn a_printed_name_is_taken_back_as_its_bytes() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join(raw(b"\xff.txt")), "x").unwrap();
        assert_eq!(given(root.path(), r"\xff.txt"), raw(b"\xff.txt"));
        assert_eq!(given(root.path(), "plain.txt"), raw(b"plain.txt"));
        assert_eq!(
            given(
                root.path(),
                root.path().join("x").with_file_name(r"\xff.txt")
            ),
            root.path().join(raw(b"\xff.txt"))
        );
    }

    #[test]
    fn a_name_that_exists_literally_means_itself() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join(r"a\xe9"), "x").unwrap();
        std::fs::write(root.path().join(raw(b"a\xe9")), "y").unwrap();
        assert_eq!(given(root.path(), r"a\xe9"), raw(br"a\xe9"));
    }

    #[test]
    fn text_and_back_keeps_the_bytes() {
        let name = raw(b"caf\xe9\n.txt");
        assert_eq!(as_text(&name), "caf\\xe9\n.txt");
        assert_eq!(from_text(&as_text(&name)), name);
        assert_eq!(shown(&name), r"caf\xe9\n.txt");
    }
}
