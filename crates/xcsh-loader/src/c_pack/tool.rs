//! A C pack's tool as the v1 ABI's tool.

use std::ffi::c_void;
use std::sync::Arc;

use abi_stable::std_types::{ROption, RResult, RStr, RString};
use xcsh_c_abi::{XCSH_HINT_FALSE, XCSH_HINT_TRUE, XcshCall, XcshHint, XcshOutput, XcshStr};
use xcsh_plugin_api::abi::v1::{
    CustomTool, ExecuteContextRef, FfiError, FfiToolHints, FfiToolOutput,
};

use super::host::{CallData, HostTable};
use super::output::Output;

/// The pack's `execute`.
pub(crate) type ExecuteFn =
    unsafe extern "C" fn(*const XcshCall, *mut c_void, XcshStr, *mut XcshOutput);

/// One tool of a C pack: its strings copied at load, its `execute` and
/// `tool_data` kept, with the session's host table.
pub(crate) struct CTool {
    pub(crate) name: String,
    pub(crate) label: String,
    pub(crate) description: String,
    pub(crate) parameters: String,
    pub(crate) hints: FfiToolHints,
    pub(crate) execute: ExecuteFn,
    pub(crate) tool_data: *mut c_void,
    pub(crate) host: Arc<HostTable>,
}

// SAFETY: the header tells authors that `execute` may run on several
// threads at once with the same `tool_data`.
unsafe impl Send for CTool {}
// SAFETY: as above.
unsafe impl Sync for CTool {}

/// A hint as the v1 ABI's: anything but false and true is unstated.
pub(crate) fn hint(value: XcshHint) -> ROption<bool> {
    match value {
        XCSH_HINT_FALSE => ROption::RSome(false),
        XCSH_HINT_TRUE => ROption::RSome(true),
        _ => ROption::RNone,
    }
}

impl CustomTool for CTool {
    fn name(&self) -> RResult<RString, FfiError> {
        RResult::ROk(self.name.as_str().into())
    }

    fn label(&self) -> RResult<RString, FfiError> {
        RResult::ROk(self.label.as_str().into())
    }

    fn description(&self) -> RResult<RString, FfiError> {
        RResult::ROk(self.description.as_str().into())
    }

    fn parameters_json(&self) -> RResult<RString, FfiError> {
        RResult::ROk(self.parameters.as_str().into())
    }

    fn hints(&self) -> RResult<FfiToolHints, FfiError> {
        RResult::ROk(self.hints)
    }

    fn execute(
        &self,
        call_id: RStr<'_>,
        arguments_json: RStr<'_>,
        context: ExecuteContextRef<'_>,
    ) -> RResult<FfiToolOutput, FfiError> {
        // The ABI's string writes bytes that are not UTF-8 as `\xNN`; a C
        // pack gets the bytes themselves.
        let cwd = xcsh_safe_fs::name::given(std::path::Path::new(""), context.cwd().as_str());
        let cwd = super::host::path_bytes(&cwd);
        let data = CallData { context: &context };
        let call = XcshCall {
            host: self.host.table(),
            call_id: XcshStr::new(call_id.as_str()),
            cwd: XcshStr::from_bytes(&cwd),
            call_data: (&raw const data).cast(),
        };
        let mut output = Output::default();
        // SAFETY: the pack's `execute`, with the signature the header
        // declares; the call, its strings, the host table and the output
        // all outlive it.
        unsafe {
            (self.execute)(
                &raw const call,
                self.tool_data,
                XcshStr::new(arguments_json.as_str()),
                (&raw mut output).cast(),
            );
        }
        output.into_result()
    }
}
