//! What a tool, an apply or a reject returns.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ContentBlock;

/// The successful output of a tool, an apply or a reject: content blocks for
/// the model and optional structured details for the front end.
///
/// ```
/// use xcsh_tool_types::{ContentBlock, ToolOutput};
/// use serde_json::json;
///
/// let output = ToolOutput::text("Renamed 1 file.")
///     .with_block(ContentBlock::image("iVBORw0KGgo=", "image/png"))
///     .with_details(json!({"renamed": 1}));
/// assert_eq!(output.content.len(), 2);
/// assert_eq!(
///     serde_json::to_value(&output).unwrap(),
///     json!({
///         "content": [
///             {"type": "text", "text": "Renamed 1 file."},
///             {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
///         ],
///         "details": {"renamed": 1}
///     })
/// );
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutput {
    /// Content blocks, in order.
    pub content: Vec<ContentBlock>,
    /// Structured details (JSON), not shown to the model as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ToolOutput {
    /// Output with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![ContentBlock::text(text)])
    }

    /// Output with the given content blocks.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            details: None,
        }
    }

    /// Output with no content: where one is expected (an apply, a reject),
    /// the host supplies its default message.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Adds a content block at the end.
    pub fn with_block(mut self, block: ContentBlock) -> Self {
        self.content.push(block);
        self
    }

    /// Attaches structured details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}
