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
//! "Control character" means the C0 and C1 controls and DEL (which is how
//! terminal escapes begin: ESC and CSI) plus the Unicode bidirectional
//! overrides and isolates, which reorder what the reader sees. A backslash
//! is printed as it is, so a literal `\n` typed into a field and an escaped
//! newline look the same: escaping is for the terminal's safety, not a
//! reversible encoding. JSON output (`xcsh run` without `--pretty`,
//! `--json`) is for programs and is never escaped.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `s` for a one-line field: every control character escaped, newlines too.
pub fn line(s: &str) -> Cow<'_, str> {
    escape(s, |_| false)
}

/// `s` for multi-line text: newlines and tabs kept, every other control
/// character escaped.
pub fn text(s: &str) -> Cow<'_, str> {
    escape(s, |c| c == '\n' || c == '\t')
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
}
