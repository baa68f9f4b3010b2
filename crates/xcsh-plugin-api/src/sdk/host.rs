//! The host as pack code sees it.

use std::fmt;
use std::path::PathBuf;

use abi_stable::std_types::RResult;

use crate::abi::v1::{CustomToolApiHandle, CustomToolPendingActionBox, FfiError, FfiLogLevel};
use crate::abi::v2::CustomToolApiV2Handle;
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
    api: Api,
}

/// The host API of the ABI version the host loaded the pack under.
#[derive(Clone)]
enum Api {
    V1(CustomToolApiHandle),
    V2(CustomToolApiV2Handle),
}

impl Api {
    fn push(&self, action: CustomToolPendingActionBox) -> RResult<(), FfiError> {
        match self {
            Self::V1(api) => api.push_pending_action(action),
            Self::V2(api) => api.push_pending_action(action),
        }
    }
}

impl Host {
    pub(crate) fn new(api: CustomToolApiHandle) -> Self {
        Self { api: Api::V1(api) }
    }

    pub(crate) fn new_v2(api: CustomToolApiV2Handle) -> Self {
        Self { api: Api::V2(api) }
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
            .push(boxed_action(action))
            .into_result()
            .map_err(|e| ToolError::new(e.message.into_string()))
    }

    /// The session's working directory, byte for byte (on Unix a name
    /// that is not UTF-8 too: the host hands it over with those bytes
    /// written `\xNN`, read back here as [`fs::name::given`](crate::fs::name::given)
    /// reads a path a tool printed).
    pub fn cwd(&self) -> PathBuf {
        let cwd = match &self.api {
            Api::V1(api) => api.cwd(),
            Api::V2(api) => api.cwd(),
        };
        super::host_path(&cwd)
    }

    /// Writes `message` to the host's log.
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        let (level, message): (FfiLogLevel, _) = (level.into(), message.as_ref().into());
        match &self.api {
            Api::V1(api) => api.log(level, message),
            Api::V2(api) => api.log(level, message),
        }
    }

    /// True if the user lets tools work outside the session's working
    /// directory (`xcsh --allow-outside-root`).
    /// [`ToolContext::confined_path`](super::ToolContext::confined_path)
    /// follows it; read it here only for paths that helper cannot take.
    pub fn outside_root_allowed(&self) -> bool {
        match &self.api {
            Api::V1(_) => false,
            Api::V2(api) => api.outside_root_allowed(),
        }
    }

    /// The pack's configuration: its table in the user's config
    /// (`[packs.NAME]`), as `T`, the type named in
    /// [`export_tool_pack!`](crate::export_tool_pack)`(factory, config = T)`.
    /// The host validated the table against `T`'s schema before the
    /// factory ran (a bad key fails the load naming it), and a table the
    /// user did not write reads as `{}`, so `T`'s serde defaults apply.
    ///
    /// # Errors
    ///
    /// The table does not deserialize as `T` (only if `T` is not the type
    /// the pack exported): `pack configuration: {serde's message}`.
    pub fn config<T: serde::de::DeserializeOwned>(&self) -> Result<T, ToolError> {
        let text = match &self.api {
            Api::V1(_) => "{}".into(),
            Api::V2(api) => api.pack_config().into_string(),
        };
        serde_json::from_str(&text)
            .map_err(|error| ToolError::new(format!("pack configuration: {error}")))
    }
}

impl fmt::Debug for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Host").finish_non_exhaustive()
    }
}
