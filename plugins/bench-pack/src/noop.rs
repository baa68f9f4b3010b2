//! The `noop` tool: the smallest call there is.

use xcsh_plugin_api::schemars::JsonSchema;
use xcsh_plugin_api::serde::Deserialize;
use xcsh_plugin_api::{Tool, ToolContext, ToolError, ToolOutput};

/// Arguments of `noop`: none.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(crate = "xcsh_plugin_api::serde", deny_unknown_fields)]
#[schemars(crate = "xcsh_plugin_api::schemars")]
pub struct NoopParams {}

/// Answers `ok` and does nothing else.
#[derive(Debug, Clone)]
pub struct Noop {
    name: String,
}

impl Default for Noop {
    /// Named `noop_{tag}` (see [`base_name`](crate::base_name)).
    fn default() -> Self {
        Self {
            name: crate::tool_name("noop"),
        }
    }
}

/// The work of `noop`: one text block, `ok`.
pub fn noop(_params: &NoopParams) -> ToolOutput {
    ToolOutput::text("ok")
}

impl Tool for Noop {
    type Params = NoopParams;

    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        "No-op"
    }

    fn description(&self) -> &str {
        "Does nothing and answers ok."
    }

    fn execute(&self, params: NoopParams, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok(noop(&params))
    }
}
