//! Text from a server, made fit for one line of a message.

/// `text` on one line (runs of white space made one space), cut after
/// `chars` characters with `…`; `(no message)` when nothing is left.
pub(crate) fn one_line_cut(text: &str, chars: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(chars) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if line.is_empty() => "(no message)".to_owned(),
        None => line,
    }
}
