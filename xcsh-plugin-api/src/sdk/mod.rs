//! What pack authors touch: the [`Tool`] trait (or [`FnTool`] closures),
//! typed parameters, [`ToolOutput`] and [`ToolError`], the [`Host`] with
//! [`PendingAction`]s, and the [`ToolPack`] the export macro serves.

mod context;
mod error;
mod host;
mod no_params;
mod output;
mod pack;
mod pending;
mod tool;

pub use context::ToolContext;
pub use error::ToolError;
pub use host::{Host, LogLevel};
pub use no_params::NoParams;
pub use output::{ContentBlock, ToolHints, ToolOutput};
pub use pack::ToolPack;
pub use pending::PendingAction;
pub use tool::{FnTool, Tool};

pub(crate) use pack::DynTool;
