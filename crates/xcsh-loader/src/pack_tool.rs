//! A pack's tool as an `xcsh-core` tool.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::sabi_types::RRef;
use abi_stable::std_types::{RResult, RStr};
use serde_json::Value;
use xcsh_core::{
    Tool, ToolContext, ToolError, ToolHints, ToolOutput, check_object_schema, check_tool_name,
};
use xcsh_plugin_api::abi::v1::{CustomToolBox, ExecuteContext_TO, FfiError};

use crate::LoadError;
use crate::crash::{self, Call, Origin};
use crate::execute_context::HostCall;
use crate::{call_log, convert};

/// A tool from a pack, adapted to [`xcsh_core::Tool`]. Its name, label,
/// description and schema are read once, at load.
pub struct PackTool {
    name: String,
    label: String,
    description: String,
    parameters: Value,
    hints: ToolHints,
    pack: Arc<str>,
    path: Arc<Path>,
    tool: Arc<CustomToolBox>,
    origin: Arc<Origin>,
}

/// Reads one accessor, naming it in the error.
fn read<T>(index: usize, accessor: &str, result: RResult<T, FfiError>) -> Result<T, LoadError> {
    result.into_result().map_err(|e| LoadError::InvalidTool {
        index,
        reason: convert::accessor_failure(e, accessor),
    })
}

impl PackTool {
    /// Reads and checks the `index`-th (from 1) tool of the pack `pack` at
    /// `path`.
    pub(crate) fn new(
        tool: CustomToolBox,
        index: usize,
        pack: Arc<str>,
        path: Arc<Path>,
        origin: Arc<Origin>,
    ) -> Result<Self, LoadError> {
        let invalid = |reason: String| LoadError::InvalidTool { index, reason };
        let name = read(index, "name", tool.name())?.into_string();
        check_tool_name(&name).map_err(|e| invalid(e.to_string()))?;
        let label = read(index, "label", tool.label())?.into_string();
        let description = read(index, "description", tool.description())?.into_string();
        let schema = read(index, "parameters", tool.parameters_json())?;
        let parameters: Value = serde_json::from_str(&schema)
            .map_err(|e| invalid(format!("{name}: parameters are not valid JSON: {e}")))?;
        let parameters = xcsh_core::offered_schema(parameters);
        check_object_schema(&parameters).map_err(|e| invalid(format!("{name}: {e}")))?;
        let hints = read(index, "hints", tool.hints())?;
        Ok(Self {
            name,
            label,
            description,
            parameters,
            hints: convert::hints(hints),
            pack,
            path,
            tool: Arc::new(tool),
            origin,
        })
    }

    /// The name of the pack the tool comes from.
    pub fn pack_name(&self) -> &str {
        &self.pack
    }

    /// The library file the tool comes from.
    pub fn pack_path(&self) -> &Path {
        &self.path
    }
}

impl Tool for PackTool {
    fn name(&self) -> &str {
        &self.name
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
        // The session runs this under its time limit (see
        // `xcsh_core::CallLimits`); the library is never unloaded, so a call
        // it abandons stays memory-safe.
        let text = arguments.to_string();
        drop(arguments); // a large call's parsed arguments need not outlive its text
        let _logging = call_log::enter(&self.pack, context);
        call(&self.tool, &self.origin, &self.name, &text, context)
    }
}

/// One crossing into the pack: JSON arguments in, converted output back.
fn call(
    tool: &CustomToolBox,
    origin: &Origin,
    name: &str,
    arguments: &str,
    context: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let host_call = HostCall { context };
    let in_pack = Call::tool(origin, name);
    let _in_pack = crash::enter(&in_pack);
    let output = tool.execute(
        RStr::from_str(context.call_id()),
        RStr::from_str(arguments),
        ExecuteContext_TO::from_ptr(RRef::new(&host_call), TD_Opaque),
    );
    convert::result(output, || format!("Tool {name}"))
}

impl fmt::Debug for PackTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackTool")
            .field("name", &self.name)
            .field("pack", &self.pack)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}
