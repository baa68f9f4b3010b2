//! The host's API, handed to a pack's factory and kept by its tools.
#![allow(non_local_definitions, missing_docs)]

use abi_stable::std_types::{RArc, RResult, RStr, RString};
use abi_stable::{StableAbi, sabi_trait};

use super::{CustomToolPendingActionBox, FfiError};

/// A log level for [`CustomToolApi::log`].
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FfiLogLevel {
    /// Very detailed.
    Trace,
    /// For developers.
    Debug,
    /// Normal operation.
    Info,
    /// Something looks wrong.
    Warn,
    /// Something failed.
    Error,
}

/// What the host offers a pack: bound to the store of the session the
/// pack's tools were created for.
#[sabi_trait]
pub trait CustomToolApi: Clone + Send + Sync {
    /// Puts a pending action on the session's store. Fails with
    /// `Pending action store unavailable for custom tools in this runtime.`
    /// when the runtime has no store.
    fn push_pending_action(&self, action: CustomToolPendingActionBox) -> RResult<(), FfiError>;

    /// The session's working directory.
    fn cwd(&self) -> RString;

    /// Writes to the host's log. End of the frozen v1 prefix.
    #[sabi(last_prefix_field)]
    fn log(&self, level: FfiLogLevel, message: RStr<'_>);
}

/// A shared handle on the host's API.
pub type CustomToolApiHandle = CustomToolApi_TO<'static, RArc<()>>;
