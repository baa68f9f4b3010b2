//! The batch-rename tool pack.
//!
//! One tool, `batch_rename_preview`: given files and a rename rule (a regex
//! with a replacement, a prefix or a suffix), it previews the plan
//! (old → new), refusing missing sources and collisions before anything is
//! pushed, then registers a pending action. `resolve` apply renames the files
//! for real and never overwrites; discard leaves them and says what was
//! dropped.
//!
//! It only acts inside the working directory the host gives it: a file
//! that resolves (symlinks included) outside it, or whose directory does,
//! is refused, and apply checks the directory again. There is no way to
//! allow more; a symlink inside the directory is renamed as a link, never
//! its target.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod apply;
mod params;
mod plan;
mod rule;
mod tool;

pub use apply::{ApplyError, apply_plan};
pub use params::{BatchRenameParams, RenameRule};
pub use plan::{PlanError, Rename, RenamePlan};
pub use tool::{BatchRenamePreview, NAME};

use xcsh_plugin_api::{Host, ToolError, ToolPack};

/// The pack's factory: one `batch_rename_preview` per session.
pub fn tools(_host: &Host) -> Result<ToolPack, ToolError> {
    Ok(ToolPack::new().with_tool(BatchRenamePreview))
}

xcsh_plugin_api::export_tool_pack!(tools);
