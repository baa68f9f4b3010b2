//! Serving a pack's factory inside the host's own process, without a
//! library: what a test harness does (`xcsh-pack-test` runs a pack's tools
//! through the agent's host path this way, in an ordinary `#[test]`).
//!
//! Pack authors do not call this; they test with `xcsh-pack-test` and
//! export with [`export_tool_pack!`](crate::export_tool_pack), which serves
//! the same function to a host that loads the library. A host calls
//! [`create_tools`] with the v1 host API it would hand a loaded pack, and
//! gets back exactly what that pack's `create_tools` entry would return.

use abi_stable::std_types::{RResult, RVec};

use crate::abi::v1::{CustomToolApiHandle, CustomToolBox, FfiError};
use crate::sdk::Factory;

/// Runs `factory` for the host behind `api` and returns its tools behind
/// the v1 tool vtable, as a loaded pack's `create_tools` entry does: the
/// factory's error becomes an [`FfiError`], a panic in it an
/// [`FfiErrorKind::Panic`](crate::abi::v1::FfiErrorKind::Panic) error, and
/// every entry point of every tool is guarded the same way.
///
/// ```
/// use xcsh_plugin_api::prelude::*;
///
/// fn tools(_host: &Host) -> Result<ToolPack, ToolError> {
///     Err(ToolError::new("no tools today"))
/// }
///
/// // A host passes its own API; a factory that fails never looks at it.
/// # use xcsh_plugin_api::abi::v1::{CustomToolApi, CustomToolApi_TO, CustomToolPendingActionBox, FfiError, FfiLogLevel};
/// # use xcsh_plugin_api::abi_stable::{sabi_trait::TD_Opaque, std_types::{RArc, RResult, RStr, RString}};
/// # #[derive(Clone)]
/// # struct NoHost;
/// # impl CustomToolApi for NoHost {
/// #     fn push_pending_action(&self, _: CustomToolPendingActionBox) -> RResult<(), FfiError> { RResult::ROk(()) }
/// #     fn cwd(&self) -> RString { ".".into() }
/// #     fn log(&self, _: FfiLogLevel, _: RStr<'_>) {}
/// # }
/// # let api = CustomToolApi_TO::from_ptr(RArc::new(NoHost), TD_Opaque);
/// let result = xcsh_plugin_api::in_process::create_tools(tools, api);
/// let error = result.into_result().err().expect("the factory fails");
/// assert_eq!(error.message.as_str(), "no tools today");
/// ```
pub fn create_tools(
    factory: Factory,
    api: CustomToolApiHandle,
) -> RResult<RVec<CustomToolBox>, FfiError> {
    crate::ffi::__create_tools(factory, api)
}

/// As [`create_tools`], for a host serving ABI version 2 (the one that
/// tells packs of `--allow-outside-root` and their configuration).
pub fn create_tools_v2(
    factory: Factory,
    api: crate::abi::v2::CustomToolApiV2Handle,
) -> RResult<RVec<CustomToolBox>, FfiError> {
    crate::ffi::__create_tools_v2(factory, api)
}
