//! Pack-supplied text made safe to print: control characters (escape
//! sequences, carriage returns, bells) are shown escaped instead of
//! reaching the terminal.

/// `text` with every control character escaped as Rust does (`\u{1b}`,
/// `\r`, `\t`); line breaks are kept when `keep_newlines` is true.
pub fn escape_controls(text: &str, keep_newlines: bool) -> String {
    if !text.contains(char::is_control) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' && keep_newlines {
            out.push(c);
        } else if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_line_breaks_kept_on_request() {
        assert_eq!(escape_controls("plain → text", false), "plain → text");
        assert_eq!(
            escape_controls("a\u{1b}[2Jb\rc\nd", true),
            "a\\u{1b}[2Jb\\rc\nd"
        );
        assert_eq!(escape_controls("a\nb", false), "a\\nb");
    }
}
