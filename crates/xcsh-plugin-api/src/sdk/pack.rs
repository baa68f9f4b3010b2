//! The set of tools a pack's factory returns.

use std::fmt;

use serde_json::Value;

use super::{Host, Tool, ToolContext, ToolError, ToolHints, ToolOutput};

/// A pack's factory, the function given to
/// [`export_tool_pack!`](crate::export_tool_pack): called once per session
/// with the session's [`Host`].
pub type Factory = fn(&Host) -> Result<ToolPack, ToolError>;

/// A [`Tool`] with its parameter type erased.
pub(crate) trait DynTool: Send + Sync {
    fn name(&self) -> &str;
    fn label(&self) -> &str;
    fn description(&self) -> &str;
    fn parameters(&self) -> Result<Value, ToolError>;
    fn hints(&self) -> ToolHints;
    fn execute_json(&self, arguments: &str, ctx: &ToolContext<'_>)
    -> Result<ToolOutput, ToolError>;
}

impl<T: Tool> DynTool for T {
    fn name(&self) -> &str {
        Tool::name(self)
    }

    fn label(&self) -> &str {
        Tool::label(self)
    }

    fn description(&self) -> &str {
        Tool::description(self)
    }

    fn parameters(&self) -> Result<Value, ToolError> {
        let mut schema = serde_json::to_value(schemars::schema_for!(T::Params))?;
        super::description::unwrap_descriptions(&mut schema);
        Ok(schema)
    }

    fn hints(&self) -> ToolHints {
        Tool::hints(self)
    }

    fn execute_json(
        &self,
        arguments: &str,
        ctx: &ToolContext<'_>,
    ) -> Result<ToolOutput, ToolError> {
        let params: T::Params = serde_json::from_str(arguments).map_err(|e| {
            ToolError::new(format!("Invalid arguments for {}: {e}", Tool::name(self)))
        })?;
        self.execute(params, ctx)
    }
}

/// The tools a pack offers a session.
///
/// ```
/// use xcsh_plugin_api::prelude::*;
///
/// let pack = ToolPack::new().with_tool(FnTool::new("ping", "Ping", "Answers pong.", |_: NoParams, _| {
///     Ok(ToolOutput::text("pong"))
/// }));
/// assert_eq!(pack.len(), 1);
/// ```
#[derive(Default)]
pub struct ToolPack {
    pub(crate) tools: Vec<Box<dyn DynTool>>,
}

impl ToolPack {
    /// A pack with no tools yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool.
    pub fn with_tool(mut self, tool: impl Tool) -> Self {
        self.tools.push(Box::new(tool));
        self
    }

    /// How many tools it has.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True if it has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl fmt::Debug for ToolPack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}
