//! The host side of `ExecuteContext`, lent to a pack for one call.

use abi_stable::std_types::RString;
use xcsh_core::ToolContext;
use xcsh_plugin_api::abi::v1::{ExecuteContext, FfiToolOutput};

use crate::convert;

/// One running call's progress sink and cancellation flag.
pub(crate) struct HostCall<'a> {
    pub(crate) context: &'a ToolContext,
}

// Called from pack code through `extern "C"` shims: none of these may panic
// (a progress callback that does is caught and logged).
impl ExecuteContext for HostCall<'_> {
    fn cwd(&self) -> RString {
        convert::path(self.context.cwd())
    }

    fn report_progress(&self, partial: FfiToolOutput) {
        let forwarded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            match convert::output(partial) {
                Ok(partial) => self.context.report_progress(&partial),
                Err(error) => tracing::warn!(%error, "dropped a progress report"),
            }
        }));
        if forwarded.is_err() {
            tracing::error!("progress callback panicked");
        }
    }

    fn is_cancelled(&self) -> bool {
        self.context.is_cancelled()
    }
}
