//! What a test sees of a pending action.

use serde_json::Value;

/// A pending action as the host holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingInfo {
    /// The label shown to the model and the user.
    pub label: String,
    /// The tool that produced it (`custom_tool` when the pack did not say).
    pub source_tool_name: String,
    /// The details the pack attached, if any.
    pub details: Option<Value>,
}
