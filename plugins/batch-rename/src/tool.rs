//! The `batch_rename_preview` tool.

use xcsh_plugin_api::serde_json::json;
use xcsh_plugin_api::{PendingAction, Tool, ToolContext, ToolError, ToolHints, ToolOutput};

use crate::{BatchRenameParams, RenamePlan, apply_plan};

/// Previews a batch rename and registers it as a pending action.
#[derive(Debug, Clone, Copy, Default)]
pub struct BatchRenamePreview;

/// The tool's name.
pub const NAME: &str = "batch_rename_preview";

impl Tool for BatchRenamePreview {
    type Params = BatchRenameParams;

    fn name(&self) -> &str {
        NAME
    }

    fn label(&self) -> &str {
        "Batch Rename"
    }

    fn description(&self) -> &str {
        "Preview renaming several files with one rule (regex replacement, prefix or suffix). \
         Nothing is renamed until you call `resolve` with `apply`; `discard` leaves the files."
    }

    fn hints(&self) -> ToolHints {
        ToolHints::PREVIEW
    }

    fn execute(
        &self,
        params: BatchRenameParams,
        ctx: &ToolContext<'_>,
    ) -> Result<ToolOutput, ToolError> {
        let plan =
            RenamePlan::new(ctx.cwd(), &params).map_err(|e| ToolError::new(e.to_string()))?;
        if plan.renames.is_empty() {
            return Ok(ToolOutput::text(
                "Nothing to rename: the rule leaves every file name as it is.",
            ));
        }
        let lines = plan.lines();
        let details = json!({
            "renames": plan.renames.iter().map(|r| json!({"from": r.from_display, "to": r.to_display})).collect::<Vec<_>>(),
            "unchanged": plan.unchanged,
        });
        let count = plan.count_text();
        let mut preview = format!("Batch rename preview ({count}):\n  {}", lines.join("\n  "));
        if !plan.unchanged.is_empty() {
            preview.push_str(&format!("\nUnchanged: {}", plan.unchanged.join(", ")));
        }

        let (applied_lines, applied_count) = (lines.clone(), count.clone());
        let (discarded_lines, discarded_count) = (lines, count.clone());
        let action = PendingAction::new(format!("Batch Rename: {count}"), move |_reason| {
            apply_plan(&plan).map_err(|e| ToolError::new(e.to_string()))?;
            Ok(ToolOutput::text(format!(
                "Renamed {applied_count}:\n  {}",
                applied_lines.join("\n  ")
            ))
            .with_details(json!({ "renamed": applied_lines })))
        })
        .with_source_tool_name(NAME)
        .with_details(details.clone())
        .with_reject(move |_reason| {
            Ok(Some(
                ToolOutput::text(format!(
                    "Discarded batch rename of {discarded_count}; nothing was renamed:\n  {}",
                    discarded_lines.join("\n  ")
                ))
                .with_details(json!({ "discarded": discarded_lines })),
            ))
        });
        ctx.push_pending_action(action)?;
        Ok(ToolOutput::text(preview).with_details(details))
    }
}
