//! What a tool, an apply or a reject returns.

use serde_json::Value;

/// One block of content for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContentBlock {
    /// Plain text.
    Text(String),
    /// A base64-encoded image with its MIME type.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `image/png`.
        mime_type: String,
    },
}

/// Content blocks plus optional structured details.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    /// Content blocks, in order.
    pub content: Vec<ContentBlock>,
    /// Structured details (JSON) for front ends.
    pub details: Option<Value>,
}

impl ToolOutput {
    /// Output with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::Text(text.into())],
            details: None,
        }
    }

    /// Output with no content: the host supplies its default message.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Adds a content block.
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

/// What a tool says about its effects, for clients (MCP's tool
/// annotations). `None` means not stated; hints are advice, not enforced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolHints {
    /// Changes nothing (a preview that only pushes a pending action counts).
    pub read_only: Option<bool>,
    /// May destroy or overwrite data.
    pub destructive: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// Reaches outside the working directory (network, other systems).
    pub open_world: Option<bool>,
}

impl ToolHints {
    /// A preview tool: changes nothing until `resolve`, stays local.
    pub const PREVIEW: Self = Self {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: None,
        open_world: Some(false),
    };
}
