//! The tool vtable.
#![allow(non_local_definitions, missing_docs)]

use abi_stable::sabi_trait;
use abi_stable::std_types::{RBox, RResult, RStr, RString};

use super::{ExecuteContextRef, FfiError, FfiToolHints, FfiToolOutput};

/// One tool of a pack. The host reads the accessors once, at load.
#[sabi_trait]
pub trait CustomTool: Send + Sync {
    /// The unique name the model calls it by.
    fn name(&self) -> RResult<RString, FfiError>;

    /// A short human-readable label.
    fn label(&self) -> RResult<RString, FfiError>;

    /// What it does, for the model.
    fn description(&self) -> RResult<RString, FfiError>;

    /// The JSON schema of its arguments, serialised.
    fn parameters_json(&self) -> RResult<RString, FfiError>;

    /// What the tool says about its effects.
    fn hints(&self) -> RResult<FfiToolHints, FfiError>;

    /// Runs a call with validated JSON arguments. End of the frozen v1
    /// prefix.
    #[sabi(last_prefix_field)]
    fn execute(
        &self,
        call_id: RStr<'_>,
        arguments_json: RStr<'_>,
        context: ExecuteContextRef<'_>,
    ) -> RResult<FfiToolOutput, FfiError>;
}

/// An owned tool.
pub type CustomToolBox = CustomTool_TO<'static, RBox<()>>;
