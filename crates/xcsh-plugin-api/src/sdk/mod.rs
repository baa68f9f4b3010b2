//! What pack authors touch: the [`Tool`] trait (or [`FnTool`] closures),
//! typed parameters, [`ToolOutput`] and [`ToolError`], the [`Host`] with
//! [`PendingAction`]s, and the [`ToolPack`] the export macro serves.
//!
//! The plain values ([`ToolOutput`], [`ContentBlock`], [`ToolHints`],
//! [`ToolError`], [`PendingAction`], [`LogLevel`]) are the agent's own
//! types (the `xcsh-tool-types` crate, which the agent's `xcsh-core`
//! re-exports too): a pack builds exactly what the host checks, with the
//! same rules and messages.

mod context;
mod description;
mod host;
mod no_params;
mod pack;
mod tool;

pub use context::ToolContext;
pub use host::Host;
pub use no_params::NoParams;
pub use pack::{Factory, ToolPack};
pub use tool::{FnTool, Tool};
pub use xcsh_tool_types::{
    ContentBlock, DIFF_CONTEXT_LINES, LogLevel, PendingAction, PendingActionError, ToolError,
    ToolHints, ToolOutput, unified_diff,
};

pub(crate) use pack::DynTool;

/// A path the host handed over as a string (the ABI's strings are UTF-8):
/// the path itself when something exists there, else with its `\xNN`
/// escapes of bytes 0x80 and above turned back into those bytes, which is
/// how the host writes a working directory that is not UTF-8.
pub(crate) fn host_path(text: &str) -> std::path::PathBuf {
    crate::fs::name::given(std::path::Path::new(""), text)
}
