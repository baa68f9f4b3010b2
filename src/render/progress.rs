//! A line for each partial result a tool reports while it runs
//! (`report_progress`), shown by `xcsh run --pretty` and `xcsh repl`.

use xcsh_core::ToolOutput;

use xcsh_text::escape;

/// `… {tool}  {text}`: the partial result's text blocks on one line
/// (escaped, as everything a pack writes), images as `[image: {mime}]`.
pub fn line(tool: &str, partial: &ToolOutput) -> String {
    let parts: Vec<String> = partial
        .content
        .iter()
        .map(|block| match block {
            xcsh_core::ContentBlock::Text(text) => escape::line(text).into_owned(),
            xcsh_core::ContentBlock::Image { mime_type, .. } => {
                format!("[image: {}]", escape::line(mime_type))
            }
        })
        .collect();
    format!("… {}  {}", escape::line(tool), parts.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_result_is_one_escaped_line() {
        assert_eq!(
            line("progress", &ToolOutput::text("step 1\nof 2\u{1b}[2J")),
            "… progress  step 1\\nof 2\\u{1b}[2J"
        );
    }
}
