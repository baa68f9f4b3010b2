//! A tool of an isolated pack, as an ordinary session tool: same name,
//! label, description, schema and hints; it runs in the pack's process.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use xcsh_core::{Tool, ToolContext, ToolError, ToolHints, ToolOutput};
use xcsh_isolate_protocol::{ToolSpec, convert};

use super::pack::IsolatedPack;

/// Why a tool of an isolated pack cannot be offered: what the pack's
/// process (or its start record) says of it is not usable.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolSpecError {
    /// Its parameter schema is not JSON.
    #[error("{name}: parameters are not valid JSON")]
    Parameters {
        /// The tool's name.
        name: String,
        /// Why the schema does not parse.
        #[source]
        source: serde_json::Error,
    },
}

/// What the model is shown of a tool of an isolated pack: its name,
/// label, description, schema and hints, from its [`ToolSpec`].
#[derive(Clone, Debug)]
pub(crate) struct Descriptor {
    pub(crate) name: String,
    pub(crate) label: String,
    pub(crate) description: String,
    pub(crate) parameters: Value,
    pub(crate) hints: ToolHints,
}

impl Descriptor {
    /// The descriptor `spec` gives.
    ///
    /// # Errors
    ///
    /// A schema that is not valid JSON.
    pub(crate) fn from_spec(spec: &ToolSpec) -> Result<Self, ToolSpecError> {
        let parameters: Value = serde_json::from_str(&spec.parameters_json).map_err(|source| {
            ToolSpecError::Parameters {
                name: spec.name.clone(),
                source,
            }
        })?;
        Ok(Self {
            name: spec.name.clone(),
            label: spec.label.clone(),
            description: spec.description.clone(),
            parameters,
            hints: convert::hints_from_wire(spec.hints),
        })
    }
}

/// A tool whose code runs in its pack's own process.
pub struct IsolatedTool {
    descriptor: Descriptor,
    pack: Arc<IsolatedPack>,
}

impl IsolatedTool {
    /// The tool `spec` describes, served by `pack`.
    ///
    /// # Errors
    ///
    /// A schema that is not JSON.
    pub fn new(spec: ToolSpec, pack: Arc<IsolatedPack>) -> Result<Self, ToolSpecError> {
        Ok(Self {
            descriptor: Descriptor::from_spec(&spec)?,
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
        &self.descriptor.name
    }

    /// A call past the limit kills the pack's process and says so.
    fn enforces_time_limit(&self) -> bool {
        true
    }

    fn label(&self) -> &str {
        &self.descriptor.label
    }

    fn description(&self) -> &str {
        &self.descriptor.description
    }

    fn parameters(&self) -> &Value {
        &self.descriptor.parameters
    }

    fn hints(&self) -> ToolHints {
        self.descriptor.hints
    }

    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.pack.call(&self.descriptor.name, &arguments, context)
    }
}

impl fmt::Debug for IsolatedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsolatedTool")
            .field("name", &self.descriptor.name)
            .field("pack", &self.pack.name())
            .finish_non_exhaustive()
    }
}
