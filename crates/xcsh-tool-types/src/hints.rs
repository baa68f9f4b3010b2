//! What a tool says about its effects, for front ends and protocols (MCP's
//! tool annotations).

use serde::{Deserialize, Serialize};

/// Hints about a tool's effects. `None` means "not stated". Hints are
/// advice for clients, never enforced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolHints {
    /// The tool changes nothing (a preview that only pushes a pending
    /// action counts: nothing changes until `resolve`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments has no further effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    /// It reaches outside the working directory (network, other systems).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

impl ToolHints {
    /// The hints of a preview tool: changes nothing, reaches nothing
    /// outside the working directory.
    pub const PREVIEW: Self = Self {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: None,
        open_world: Some(false),
    };

    /// The hints of a tool that only reads: changes nothing, so calling it
    /// again changes nothing either, and reaches nothing outside the
    /// working directory.
    pub const READ_ONLY: Self = Self {
        read_only: Some(true),
        destructive: Some(false),
        idempotent: Some(true),
        open_world: Some(false),
    };
}
