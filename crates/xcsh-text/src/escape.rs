//! Making text from packs, tools and arguments safe to print on a terminal.
//!
//! Everything a person reads (`run --pretty`, the REPL, `xcsh tools`, log
//! lines on stderr) may quote text a pack or a caller chose: labels, tool
//! names, descriptions, error messages, file names, reasons. Printed as it
//! is, a carriage return or an ANSI escape can rewrite what is already on
//! the screen, and a newline in a one-line field can forge a line of its own
//! (a `✓ resolve  Accept: …` that never happened). So every such text goes
//! through one of two functions here before it is printed:
//!
//! - [`line`] for one-line fields: every control character is shown as an
//!   escape (`\n`, `\r`, `\t`, `\u{1b}`), so the field stays on its line.
//! - [`text`] for multi-line tool output: real newlines (and tabs) are kept,
//!   every other control character is escaped the same way.
//!
//! - [`path`] for file names and paths, which on Unix are bytes: valid
//!   UTF-8 is shown as [`line`] shows it, and each byte that is not part of
//!   valid UTF-8 as `\xNN` (two lowercase hex digits). JSON output uses it
//!   too wherever a path must be a JSON string (JSON cannot hold raw
//!   bytes); [`unescape_path`] reads such a name back.
//!
//! "Control character" means the C0 and C1 controls and DEL (which is how
//! terminal escapes begin: ESC and CSI) plus the Unicode bidirectional
//! overrides and isolates, which reorder what the reader sees. A backslash
//! is printed as it is, so a literal `\n` typed into a field and an escaped
//! newline look the same: escaping is for the terminal's safety, not a
//! reversible encoding. JSON output (`xcsh run` without `--pretty`,
//! `--json`) is for programs and is never escaped.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `s` for a one-line field: every control character escaped, newlines too.
pub fn line(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// `s` for multi-line text: newlines and tabs kept, every other control
/// character escaped.
pub fn text(s: &str) -> Cow<'_, str> {
    escape(s, |c| c == '\n' || c == '\t')
}

/// `path` for people: valid UTF-8 as [`line`] shows it (control characters
/// escaped), each byte that is not part of valid UTF-8 as `\xNN`, two
/// lowercase hex digits. `caf\xe9/\xff.txt` is a directory whose name ends
/// in the byte 0xE9 holding a file named by the byte 0xFF. Borrowed when
/// nothing needs escaping.
pub fn path(path: &Path) -> Cow<'_, str> {
    match path.to_str() {
        Some(text) => line(text),
        None => Cow::Owned(bytes(&path_bytes(path), |text, out| {
            out.push_str(&line(text));
        })),
    }
}

/// `path` with only its bytes that are not part of valid UTF-8 written as
/// `\xNN`, everything else as it is (control characters too): the form a
/// path takes where only a string fits and a program reads it back with
/// [`unescape_path`] (the working directory a tool pack is handed).
/// Borrowed when the path is valid UTF-8.
pub fn path_bytes_only(path: &Path) -> Cow<'_, str> {
    match path.to_str() {
        Some(text) => Cow::Borrowed(text),
        None => Cow::Owned(bytes(&path_bytes(path), |text, out| out.push_str(text))),
    }
}

/// The bytes of `path` as the operating system holds them.
#[cfg(unix)]
fn path_bytes(path: &Path) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt as _;
    Cow::Borrowed(path.as_os_str().as_bytes())
}

/// The bytes of `path` as the operating system holds them (lossy where it
/// is not Unicode: only Unix paths can be arbitrary bytes).
#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Cow<'_, [u8]> {
    Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
}

/// `raw` with each run of valid UTF-8 written by `text` and each byte that
/// is not part of valid UTF-8 as `\xNN`.
fn bytes(raw: &[u8], text: impl Fn(&str, &mut String)) -> String {
    let mut out = String::with_capacity(raw.len() + 8);
    for chunk in raw.utf8_chunks() {
        text(chunk.valid(), &mut out);
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// The path a name printed by [`path`] or [`path_bytes_only`] stands for:
/// each `\xNN` escape whose byte is 0x80 or above (a byte that cannot
/// stand alone in UTF-8, so a real name never shows it unescaped) replaced
/// by that byte. `None` when `shown` has no such escape: the name means
/// itself. Other escapes (`\x41`, `\n`) are left as they are.
///
/// Callers take a name literally first and try this only when nothing
/// exists at the literal name, so a file really named `a\xe9` is still
/// found by its own name.
#[cfg(unix)]
pub fn unescape_path(shown: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt as _;
    let raw = shown.as_bytes();
    let mut out = Vec::with_capacity(raw.len());
    let mut decoded = false;
    let mut i = 0;
    while i < raw.len() {
        if let Some(byte) = high_byte_escape(&raw[i..]) {
            out.push(byte);
            decoded = true;
            i += 4;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    decoded.then(|| PathBuf::from(std::ffi::OsString::from_vec(out)))
}

/// No path outside Unix holds bytes that are not Unicode: every name means
/// itself.
#[cfg(not(unix))]
pub fn unescape_path(_shown: &str) -> Option<PathBuf> {
    None
}

/// The byte of a `\xNN` escape at the start of `raw`, if NN is two hex
/// digits naming a byte of 0x80 or above.
#[cfg(unix)]
fn high_byte_escape(raw: &[u8]) -> Option<u8> {
    let [b'\\', b'x', high, low, ..] = *raw else {
        return None;
    };
    let digit = |d: u8| char::from(d).to_digit(16);
    let byte = u8::try_from(digit(high)? * 16 + digit(low)?).ok()?;
    (byte >= 0x80).then_some(byte)
}

/// Escapes the characters of `s` that [`needs_escape`] names, except those
/// `keep` lets through.
fn escape(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| needs_escape(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !needs_escape(c) || keep(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// C0 and C1 controls, DEL, and the bidirectional embedding, override and
/// isolate characters.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        assert!(matches!(
            line("Batch Rename: 2 files → ok"),
            Cow::Borrowed(_)
        ));
        assert!(matches!(text("a\n\tb"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_one_line_field_shows_every_control_character() {
        assert_eq!(
            line("a\nb\rc\td\u{1b}[31me\u{7f}f\u{9b}g\u{0}"),
            "a\\nb\\rc\\td\\u{1b}[31me\\u{7f}f\\u{9b}g\\u{0}"
        );
    }

    #[test]
    fn multi_line_text_keeps_newlines_and_tabs_only() {
        assert_eq!(
            text("one\n\ttwo\r\u{1b}[2Kthree"),
            "one\n\ttwo\\r\\u{1b}[2Kthree"
        );
    }

    #[test]
    fn bidirectional_overrides_are_escaped() {
        assert_eq!(line("a\u{202e}b\u{2066}c"), "a\\u{202e}b\\u{2066}c");
    }

    #[cfg(unix)]
    fn raw(bytes: &[u8]) -> PathBuf {
        use std::os::unix::ffi::OsStrExt as _;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }

    #[test]
    fn a_utf8_path_is_shown_as_a_line_is() {
        assert!(matches!(path(Path::new("/src/café.rs")), Cow::Borrowed(_)));
        assert_eq!(path(Path::new("a\nb\u{1b}[2K")), "a\\nb\\u{1b}[2K");
    }

    #[cfg(unix)]
    #[test]
    fn bytes_that_are_not_utf8_are_shown_as_hex_escapes() {
        assert_eq!(path(&raw(b"/w/caf\xe9/\xff.txt")), "/w/caf\\xe9/\\xff.txt");
        // A control character beside a bad byte is still escaped, and a
        // truncated multi-byte character shows each of its bytes.
        assert_eq!(path(&raw(b"\xe2\x82\n\xc3\xa9")), "\\xe2\\x82\\né");
        assert_eq!(path_bytes_only(&raw(b"a\n\xe9")), "a\n\\xe9");
        assert!(matches!(
            path_bytes_only(Path::new("a\nb")),
            Cow::Borrowed("a\nb")
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_shown_path_reads_back_as_its_bytes() {
        for bytes in [&b"/w/caf\xe9/\xff.txt"[..], b"\x80\xfe", b"x\xc3"] {
            let shown = path(&raw(bytes)).into_owned();
            assert_eq!(unescape_path(&shown), Some(raw(bytes)), "{shown}");
            let shown = path_bytes_only(&raw(bytes)).into_owned();
            assert_eq!(unescape_path(&shown), Some(raw(bytes)), "{shown}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn only_escapes_of_bytes_0x80_and_above_are_decoded() {
        assert_eq!(unescape_path("plain.txt"), None);
        assert_eq!(unescape_path(r"a\x41\n\x7f.txt"), None);
        assert_eq!(unescape_path(r"a\xZZ\x8"), None);
        assert_eq!(
            unescape_path(r"a\x41\xE9\x80"),
            Some(raw(b"a\\x41\xe9\x80"))
        );
    }
}
