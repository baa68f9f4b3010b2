//! Everything a pack usually needs, in one import:
//! `use xcsh_plugin_api::prelude::*;`.
//!
//! The traits and types of the SDK, the [`params`]
//! attribute, [`NoParams`], and serde_json's `json!` and
//! `Value`. Nothing of the FFI layer.

pub use crate::params;
pub use crate::sdk::{
    ContentBlock, FnTool, Host, LogLevel, NoParams, PendingAction, Tool, ToolContext, ToolError,
    ToolHints, ToolOutput, ToolPack,
};
pub use serde_json::{Value, json};
