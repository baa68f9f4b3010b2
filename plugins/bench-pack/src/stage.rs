//! The `stage` tool: pushes pending actions whose apply does nothing.

use xcsh_plugin_api::schemars::JsonSchema;
use xcsh_plugin_api::serde::Deserialize;
use xcsh_plugin_api::{PendingAction, Tool, ToolContext, ToolError, ToolOutput};

/// The label of every action `stage` pushes.
pub const STAGED_LABEL: &str = "Bench: staged no-op";

/// Arguments of `stage`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(crate = "xcsh_plugin_api::serde", deny_unknown_fields)]
#[schemars(crate = "xcsh_plugin_api::schemars")]
pub struct StageParams {
    /// How many actions to push in this one call.
    #[schemars(range(min = 1, max = 10000))]
    pub count: u32,
}

/// Pushes `count` pending actions; applying one returns empty output.
#[derive(Debug, Clone)]
pub struct Stage {
    name: String,
}

impl Default for Stage {
    /// Named `stage_{tag}` (see [`base_name`](crate::base_name)).
    fn default() -> Self {
        Self {
            name: crate::tool_name("stage"),
        }
    }
}

impl Tool for Stage {
    type Params = StageParams;

    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        "Stage"
    }

    fn description(&self) -> &str {
        "Pushes `count` pending actions that do nothing when applied."
    }

    fn execute(&self, params: StageParams, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        for _ in 0..params.count {
            ctx.push_pending_action(
                PendingAction::try_new(STAGED_LABEL, |_reason| Ok(ToolOutput::empty()))?
                    .with_source_tool_name("stage"),
            )?;
        }
        Ok(ToolOutput::text("staged"))
    }
}
