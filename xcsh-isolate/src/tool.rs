//! A tool of an isolated pack, as an ordinary session tool: same name,
//! label, description, schema and hints; it runs in the pack's process.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use xcsh_core::{Tool, ToolContext, ToolError, ToolHints, ToolOutput};
use xcsh_isolate_protocol::ToolSpec;

use super::pack::IsolatedPack;
use super::wire;

/// A tool whose code runs in its pack's own process.
pub struct IsolatedTool {
    name: String,
    label: String,
    description: String,
    parameters: Value,
    hints: ToolHints,
    pack: Arc<IsolatedPack>,
}

impl IsolatedTool {
    /// The tool `spec` describes, served by `pack`.
    ///
    /// # Errors
    ///
    /// A schema that is not a JSON object schema.
    pub fn new(spec: ToolSpec, pack: Arc<IsolatedPack>) -> Result<Self, String> {
        let parameters: Value = serde_json::from_str(&spec.parameters_json)
            .map_err(|e| format!("{}: parameters are not valid JSON: {e}", spec.name))?;
        Ok(Self {
            name: spec.name,
            label: spec.label,
            description: spec.description,
            parameters,
            hints: wire::hints_from_wire(spec.hints),
            pack,
        })
    }

    /// The pack it belongs to.
    pub fn pack(&self) -> &Arc<IsolatedPack> {
        &self.pack
    }
}

impl Tool for IsolatedTool {
    fn name(&self) -> &str {
        &self.name
    }

    /// A call past the limit kills the pack's process and says so.
    fn enforces_time_limit(&self) -> bool {
        true
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn hints(&self) -> ToolHints {
        self.hints
    }

    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.pack.call(&self.name, &arguments, context)
    }
}

impl fmt::Debug for IsolatedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsolatedTool")
            .field("name", &self.name)
            .field("pack", &self.pack.name())
            .finish_non_exhaustive()
    }
}
