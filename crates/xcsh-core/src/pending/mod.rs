//! Pending actions: previews waiting for the model's `resolve`.
//!
//! A destructive tool first shows a preview and pushes a [`PendingAction`]
//! onto the session's [`PendingActionStore`]; nothing changes until the
//! model resolves it. The store is a LIFO stack: several previews resolve
//! newest first. The action itself (its label rule included) is defined in
//! `xcsh-tool-types`, shared with the pack SDK.

mod store;
mod subscription;

pub use store::{PendingActionStore, PendingEntry, PendingSummary};
pub use subscription::{PushEvent, Subscription};
pub use xcsh_tool_types::{
    ApplyFn, DEFAULT_SOURCE_TOOL_NAME, PendingAction, PendingActionError, PendingActionView,
    RejectFn,
};
