//! What tools return, and what the session hands back to the model.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{ContentBlock, ToolError};

/// The successful output of a tool, an apply or a reject: content blocks for
/// the model and optional structured details for the front end.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
        Self {
            content: vec![ContentBlock::text(text)],
            details: None,
        }
    }

    /// Output with the given content blocks.
    pub fn new(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            details: None,
        }
    }

    /// Attaches structured details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Drops empty text blocks; returns `None` when no content remains.
    pub(crate) fn non_empty_content(&self) -> Option<Vec<ContentBlock>> {
        let content: Vec<ContentBlock> = self
            .content
            .iter()
            .filter(|block| !block.is_empty_text())
            .cloned()
            .collect();
        (!content.is_empty()).then_some(content)
    }
}

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
