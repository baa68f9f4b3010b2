//! The host as pack code sees it.

use std::fmt;
use std::path::PathBuf;

use crate::abi::v1::CustomToolApiHandle;
use crate::ffi::boxed_action;

use super::{LogLevel, PendingAction, ToolError};

/// The host's API, bound to the session the pack's tools were made for.
///
/// Cheap to clone, `Send + Sync`. A push is accepted only from the thread
/// running the tool call that makes it, before that call returns: a push
/// from a thread the tool spawned, or after the call returned, timed out or
/// was cancelled, is refused with `Pending action refused: the tool call
/// that pushed it is not running (push from the call's own thread, before
/// it returns)`. Other methods ([`cwd`](Self::cwd), [`log`](Self::log))
/// work from any thread at any time.
#[derive(Clone)]
pub struct Host {
    api: CustomToolApiHandle,
}

impl Host {
    pub(crate) fn new(api: CustomToolApiHandle) -> Self {
        Self { api }
    }

    /// Registers a pending action with the session's store.
    ///
    /// # Errors
    ///
    /// `Pending action store unavailable for custom tools in this runtime.`
    /// when the runtime has no store; the host's reason when it refuses the
    /// action (e.g. a push from a call that already returned);
    /// `pending action label must not be empty` for a blank label.
    pub fn push_pending_action(&self, action: PendingAction) -> Result<(), ToolError> {
        action.check()?;
        self.api
            .push_pending_action(boxed_action(action))
            .into_result()
            .map_err(|e| ToolError::new(e.message.into_string()))
    }

    /// The session's working directory.
    pub fn cwd(&self) -> PathBuf {
        PathBuf::from(self.api.cwd().into_string())
    }

    /// Writes `message` to the host's log.
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        self.api.log(level.into(), message.as_ref().into());
    }
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Host").finish_non_exhaustive()
    }
}
