//! The host's API of ABI version 2, handed to a pack's factory and kept by
//! its tools.
#![allow(non_local_definitions, missing_docs)]

use abi_stable::sabi_trait;
use abi_stable::std_types::{RArc, RResult, RStr, RString};

use crate::abi::v1::{CustomToolPendingActionBox, FfiError, FfiLogLevel};

/// What the host offers a version 2 pack: everything of
/// [`CustomToolApi`](crate::abi::v1::CustomToolApi), and the user's
/// settings for it.
#[sabi_trait]
pub trait CustomToolApiV2: Clone + Send + Sync {
    /// As [`CustomToolApi::push_pending_action`](crate::abi::v1::CustomToolApi::push_pending_action).
    fn push_pending_action(&self, action: CustomToolPendingActionBox) -> RResult<(), FfiError>;

    /// The session's working directory.
    fn cwd(&self) -> RString;

    /// Writes a line to the host's log.
    fn log(&self, level: FfiLogLevel, message: RStr<'_>);

    /// True if the user started xcsh with `--allow-outside-root`.
    fn outside_root_allowed(&self) -> bool;

    /// The pack's configuration table as JSON (`{}` when the user wrote
    /// none), already validated against the schema the pack declared.
    #[sabi(last_prefix_field)]
    fn pack_config(&self) -> RString;
}

/// The handle a factory receives: shared, `Send + Sync`.
pub type CustomToolApiV2Handle = CustomToolApiV2_TO<'static, RArc<()>>;
