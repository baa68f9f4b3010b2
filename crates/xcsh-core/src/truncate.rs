//! Capping the size of one result.

use std::io;

use xcsh_tool_types::ContentBlock;

use crate::output::ToolResult;

/// The note that ends a result cut to the cap.
pub(crate) fn truncation_note(total: usize, cap: usize) -> String {
    format!("[Result truncated: {total} bytes, over the {cap}-byte limit]")
}

/// `result` cut to at most `cap` bytes of content and details, with
/// [`truncation_note`] as a last text block; unchanged if it fits.
///
/// Content comes first, in order: text is cut at a character boundary,
/// and an image that does not fit whole is dropped, as is every block
/// after the cap. Details are kept only if they fit in what is left.
pub(crate) fn cap_result(tool: &str, mut result: ToolResult, cap: usize) -> ToolResult {
    let details_len = result.details.as_ref().map_or(0, json_len);
    let content_len: usize = result.content.iter().map(block_len).sum();
    let total = content_len + details_len;
    if total <= cap {
        return result;
    }
    let mut budget = cap;
    let mut kept = Vec::with_capacity(result.content.len() + 1);
    for block in result.content {
        if budget == 0 {
            break;
        }
        let len = block_len(&block);
        if len <= budget {
            budget -= len;
            kept.push(block);
        } else if let ContentBlock::Text(mut text) = block {
            let mut end = budget;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            text.shrink_to_fit();
            budget = 0;
            kept.push(ContentBlock::Text(text));
        }
    }
    if details_len > budget {
        result.details = None;
    }
    kept.push(ContentBlock::text(truncation_note(total, cap)));
    result.content = kept;
    tracing::warn!("Result of {tool} truncated: {total} bytes, over the {cap}-byte limit");
    result
}

fn block_len(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text(text) => text.len(),
        ContentBlock::Image { data, mime_type } => data.len() + mime_type.len(),
    }
}

/// The length of `value` as compact JSON, without building the text.
fn json_len(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value).expect("a JSON value serialises");
    count.0
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn text_result(text: &str) -> ToolResult {
        ToolResult {
            content: vec![ContentBlock::text(text)],
            details: None,
            is_error: false,
        }
    }

    #[test]
    fn a_result_within_the_cap_is_untouched() {
        let result = text_result("hello");
        assert_eq!(cap_result("t", result.clone(), 5), result);
    }

    #[test]
    fn an_over_cap_result_is_cut_at_a_character_boundary_with_the_note() {
        let capped = cap_result("t", text_result("aé€bcdef"), 4);
        assert_eq!(
            capped.content,
            [
                ContentBlock::text("aé"),
                ContentBlock::text("[Result truncated: 11 bytes, over the 4-byte limit]"),
            ]
        );
    }

    #[test]
    fn images_that_do_not_fit_and_later_blocks_are_dropped_and_details_last() {
        let result = ToolResult {
            content: vec![
                ContentBlock::text("abc"),
                ContentBlock::image("x".repeat(100), "image/png"),
                ContentBlock::text("def"),
            ],
            details: Some(json!({"k": "v"})),
            is_error: true,
        };
        let capped = cap_result("t", result, 8);
        assert_eq!(
            capped.content,
            [
                ContentBlock::text("abc"),
                ContentBlock::text("def"),
                ContentBlock::text("[Result truncated: 124 bytes, over the 8-byte limit]"),
            ]
        );
        assert_eq!(capped.details, None, "9 bytes of details do not fit in 2");
        assert!(capped.is_error);
    }
}
