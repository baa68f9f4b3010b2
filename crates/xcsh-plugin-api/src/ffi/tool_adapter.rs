//! An SDK tool behind the `CustomTool` vtable.

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RResult, RStr, RString};

use super::guard::guard;
use crate::abi::v1::{
    CustomTool, CustomTool_TO, CustomToolBox, ExecuteContextRef, FfiError, FfiToolHints,
    FfiToolOutput,
};
use crate::sdk::{DynTool, Host, ToolContext};

pub(crate) struct ToolAdapter {
    tool: Box<dyn DynTool>,
    host: Host,
}

impl ToolAdapter {
    pub(crate) fn boxed(tool: Box<dyn DynTool>, host: Host) -> CustomToolBox {
        CustomTool_TO::from_value(Self { tool, host }, TD_Opaque)
    }
}

impl CustomTool for ToolAdapter {
    fn name(&self) -> RResult<RString, FfiError> {
        guard(|| Ok(self.tool.name().into()))
    }

    fn label(&self) -> RResult<RString, FfiError> {
        guard(|| Ok(self.tool.label().into()))
    }

    fn description(&self) -> RResult<RString, FfiError> {
        guard(|| Ok(self.tool.description().into()))
    }

    fn parameters_json(&self) -> RResult<RString, FfiError> {
        guard(|| Ok(self.tool.parameters()?.to_string().into()))
    }

    fn hints(&self) -> RResult<FfiToolHints, FfiError> {
        guard(|| Ok(self.tool.hints().into()))
    }

    fn execute(
        &self,
        call_id: RStr<'_>,
        arguments_json: RStr<'_>,
        context: ExecuteContextRef<'_>,
    ) -> RResult<FfiToolOutput, FfiError> {
        guard(|| {
            let ctx = ToolContext {
                call_id: call_id.as_str(),
                cwd: crate::sdk::host_path(&context.cwd()),
                call: &context,
                host: &self.host,
            };
            self.tool
                .execute_json(arguments_json.as_str(), &ctx)
                .map(Into::into)
        })
    }
}
