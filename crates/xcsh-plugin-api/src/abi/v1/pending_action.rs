//! A pack's pending action, as the host sees it.
#![allow(non_local_definitions, missing_docs)]

use abi_stable::sabi_trait;
use abi_stable::std_types::{RBox, ROption, RResult, RStr, RString};

use super::{FfiError, FfiToolOutput};

/// The `CustomToolPendingAction` vtable: a preview's deferred work.
#[sabi_trait]
pub trait CustomToolPendingAction: Send + Sync {
    /// The label shown to the model and user (must not be empty).
    fn label(&self) -> RString;

    /// The tool that produced it; `None` means `custom_tool`.
    fn source_tool_name(&self) -> ROption<RString>;

    /// Structured details of the preview, serialised JSON.
    fn details_json(&self) -> ROption<RString>;

    /// Applies the action; may run again after a failure.
    fn apply(&self, reason: RStr<'_>) -> RResult<FfiToolOutput, FfiError>;

    /// True if [`reject`](CustomToolPendingAction::reject) does anything.
    fn has_reject(&self) -> bool;

    /// Cleans up after a discard; `Some` output replaces the default
    /// message. End of the frozen v1 prefix.
    #[sabi(last_prefix_field)]
    fn reject(&self, reason: RStr<'_>) -> RResult<ROption<FfiToolOutput>, FfiError>;
}

/// An owned pending action.
pub type CustomToolPendingActionBox = CustomToolPendingAction_TO<'static, RBox<()>>;
