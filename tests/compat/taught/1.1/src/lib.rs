//! A complete tool pack: the example of the `xcsh-plugin-api` crate docs.
//!
//! Build it with `cargo build -p xcsh-plugin-api --example add_prefix_pack`;
//! the integration tests load the library it makes.

use std::path::PathBuf;

use xcsh_plugin_api::prelude::*;

/// Arguments of `add_prefix_preview`. (This line is Rust documentation
/// only: the model reads the tool's description and the fields' doc
/// comments.)
#[params]
struct Params {
    /// Files to rename, relative to the working directory.
    files: Vec<String>,
    /// Text to put in front of each file name.
    prefix: String,
}

struct AddPrefix;

impl Tool for AddPrefix {
    type Params = Params;

    fn name(&self) -> &str {
        "add_prefix_preview"
    }

    fn label(&self) -> &str {
        "Add Prefix"
    }

    fn description(&self) -> &str {
        "Previews adding a prefix to file names; resolve applies it."
    }

    // It only previews: the renaming happens in the pending action's apply.
    fn hints(&self) -> ToolHints {
        ToolHints::PREVIEW
    }

    fn execute(&self, p: Params, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let mut plan: Vec<(PathBuf, PathBuf)> = Vec::new();
        for file in &p.files {
            let from = ctx.resolve_path(file);
            let name = from.file_name().ok_or("not a file name")?.to_string_lossy();
            let to = from.with_file_name(format!("{}{name}", p.prefix));
            if !from.is_file() {
                return Err(ToolError::new(format!("{file}: no such file")));
            }
            plan.push((from, to));
        }
        let preview: Vec<String> = plan
            .iter()
            .map(|(from, to)| format!("{} -> {}", from.display(), to.display()))
            .collect();
        let label = format!("Add Prefix: {} file(s)", plan.len());
        ctx.push_pending_action(
            PendingAction::new(label, move |_reason| {
                for (from, to) in &plan {
                    if to.exists() {
                        return Err(ToolError::new(format!("{} exists", to.display())));
                    }
                    std::fs::rename(from, to)?;
                }
                Ok(ToolOutput::text(format!("Renamed {} file(s).", plan.len())))
            })?
            .with_source_tool_name("add_prefix_preview")
            .with_details(json!({ "files": p.files }))
            .with_reject(|reason| {
                Ok(Some(ToolOutput::text(format!(
                    "Nothing renamed ({reason})."
                ))))
            }),
        )?;
        // The 1.1 docs (xcsh-tool-types 0.1) named a text block's field.
        let text = preview.join("\n");
        Ok(ToolOutput::empty().with_block(ContentBlock::Text { text }))
    }
}

fn tools(_host: &Host) -> Result<ToolPack, ToolError> {
    Ok(ToolPack::new().with_tool(AddPrefix))
}

xcsh_plugin_api::export_tool_pack!(tools);
