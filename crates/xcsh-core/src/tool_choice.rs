//! The tool choice a session asks the model provider for.

use serde::{Deserialize, Serialize};

/// How the next model request may use tools.
///
/// Serialises as `{"type": "auto"}`, `{"type": "required"}`,
/// `{"type": "none"}` or `{"type": "tool", "name": …}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must not call tools.
    None,
    /// The model must call this tool.
    Tool {
        /// The tool's name.
        name: String,
    },
}

/// What the model provider can do with tool choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProviderCapabilities {
    /// The provider can force one named tool; without it a forced choice
    /// degrades to [`ToolChoice::Required`].
    pub named_tool_choice: bool,
}

impl Default for ProviderCapabilities {
    fn default() -> Self {
        Self {
            named_tool_choice: true,
        }
    }
}

impl ProviderCapabilities {
    /// `choice` as this provider can express it.
    pub fn adapt(self, choice: ToolChoice) -> ToolChoice {
        match choice {
            ToolChoice::Tool { .. } if !self.named_tool_choice => ToolChoice::Required,
            other => other,
        }
    }
}
