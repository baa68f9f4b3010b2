//! What the session hands back to the model for one call.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use xcsh_tool_types::{ContentBlock, ToolError, ToolOutput};

/// The result of one tool call as the model sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Content blocks, in order.
    pub content: Vec<ContentBlock>,
    /// Structured details (JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// True when the call failed.
    #[serde(rename = "isError", default)]
    pub is_error: bool,
}

impl ToolResult {
    /// The text blocks joined by newlines (images skipped).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl From<ToolOutput> for ToolResult {
    fn from(output: ToolOutput) -> Self {
        Self {
            content: output.content,
            details: output.details,
            is_error: false,
        }
    }
}

impl From<ToolError> for ToolResult {
    fn from(error: ToolError) -> Self {
        let details = error.details().cloned();
        Self {
            content: vec![ContentBlock::text(error.message())],
            details,
            is_error: true,
        }
    }
}

impl From<Result<ToolOutput, ToolError>> for ToolResult {
    fn from(result: Result<ToolOutput, ToolError>) -> Self {
        match result {
            Ok(output) => output.into(),
            Err(error) => error.into(),
        }
    }
}
