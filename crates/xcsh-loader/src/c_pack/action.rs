//! A C pack's pending action as the v1 ABI's pending action.

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use abi_stable::std_types::{ROption, RResult, RStr, RString};
use xcsh_c_abi::{XcshHost, XcshOutput, XcshStr};
use xcsh_plugin_api::abi::v1::{CustomToolPendingAction, FfiError, FfiToolOutput};

use super::output::Output;

/// An apply or reject of the pack.
pub(crate) type ResolveFn =
    unsafe extern "C" fn(*const XcshHost, *mut c_void, XcshStr, *mut XcshOutput);

/// A host table kept alive for as long as something of the pack may use
/// it.
#[derive(Clone)]
pub(crate) struct HostRef {
    /// The table the pack is handed.
    pub(crate) table: *const XcshHost,
    /// What owns `table`.
    pub(crate) _keep: Arc<dyn Any + Send + Sync>,
}

// SAFETY: `table` points into `_keep`, which is immutable once built and
// shared; every function it holds may be called from any thread.
unsafe impl Send for HostRef {}
// SAFETY: as above.
unsafe impl Sync for HostRef {}

/// The action the pack pushed: its strings copied, its functions and
/// `user_data` kept until it is dropped (then `release` runs once).
pub(crate) struct CAction {
    pub(crate) label: String,
    pub(crate) source: Option<String>,
    pub(crate) details: Option<String>,
    pub(crate) apply: Option<ResolveFn>,
    pub(crate) reject: Option<ResolveFn>,
    pub(crate) release: Option<unsafe extern "C" fn(*mut c_void)>,
    pub(crate) user_data: *mut c_void,
    pub(crate) host: HostRef,
}

// SAFETY: the header tells authors that apply, reject and release may run
// on any thread (one at a time for one action, which the store ensures:
// an action is popped before it is applied or rejected).
unsafe impl Send for CAction {}
// SAFETY: as above; `&self` methods only read the fields.
unsafe impl Sync for CAction {}

impl CAction {
    /// Runs `function` of the pack with `reason`, collecting its output.
    fn run(&self, function: ResolveFn, reason: &str) -> Output {
        let mut output = Output::default();
        // SAFETY: `function` is the pack's, with the signature the header
        // declares; the host table lives in `self.host`, `user_data` is
        // still the pack's (not yet released), `reason` and `output`
        // outlive the call.
        unsafe {
            function(
                self.host.table,
                self.user_data,
                XcshStr::new(reason),
                (&raw mut output).cast(),
            );
        }
        output
    }
}

impl CustomToolPendingAction for CAction {
    fn label(&self) -> RString {
        self.label.as_str().into()
    }

    fn source_tool_name(&self) -> ROption<RString> {
        self.source.as_deref().map(RString::from).into()
    }

    fn details_json(&self) -> ROption<RString> {
        self.details.as_deref().map(RString::from).into()
    }

    fn apply(&self, reason: RStr<'_>) -> RResult<FfiToolOutput, FfiError> {
        match self.apply {
            Some(apply) => self.run(apply, reason.as_str()).into_result(),
            None => RResult::RErr(FfiError::error("the pack's action has no apply function")),
        }
    }

    fn has_reject(&self) -> bool {
        self.reject.is_some()
    }

    fn reject(&self, reason: RStr<'_>) -> RResult<ROption<FfiToolOutput>, FfiError> {
        match self.reject {
            Some(reject) => self.run(reject, reason.as_str()).into_optional(),
            None => RResult::ROk(ROption::RNone),
        }
    }
}

impl Drop for CAction {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: the pack's release, called once, with its own
            // `user_data`, after the last apply or reject.
            unsafe { release(self.user_data) };
        }
    }
}
