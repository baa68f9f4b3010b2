//! Session runtime of the xcsh agent.
//!
//! `xcsh-core` owns everything a session needs to run tools for a model
//! without touching FFI: tool results ([`ToolOutput`], [`ToolResult`]), the
//! [`Tool`] abstraction and its [`ToolRegistry`], the per-session LIFO
//! [`PendingActionStore`], the hidden [`ResolveTool`] that applies or
//! discards pending actions, and the [`Session`] that steers the model toward
//! `resolve` while anything is pending.
//!
//! The plain tool types ([`ToolOutput`], [`ContentBlock`], [`ToolError`],
//! [`ToolHints`], [`PendingAction`], the name and schema checks) are
//! defined once in `xcsh-tool-types` and re-exported here; the pack SDK
//! re-exports the same types, so a pack and the agent agree on them.
//!
//! A front end runs calls one of three ways, each under the session's time
//! limit: [`drive`] (a front end that owns its loop gives it as [`Turns`];
//! the loop and its calls share one thread, watched from the caller's:
//! `xcsh run`, `xcsh repl`, `xcsh agent`), [`watched_call`] with a
//! [`CallTimer`] (a front end that already runs each call on a thread of
//! its own and waits elsewhere: `xcsh mcp`), or [`Session::execute`] (the
//! call on a worker thread while the caller waits: one-off calls and
//! tests).
//!
//! Tool-pack authors should not depend on this crate: they depend on
//! `xcsh-plugin-api` only. The loader adapts packs into [`Tool`]s.
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use xcsh_core::{PendingAction, Session, ToolCall, ToolOutput};
//!
//! let session = Session::new(std::env::temp_dir());
//! let action = PendingAction::try_new("Rename 2 files", |_reason| {
//!     Ok(ToolOutput::text("Renamed 2 files."))
//! })
//! .unwrap();
//! session.store().push(action);
//! assert!(session.store().has_pending());
//!
//! let result = session.execute(&ToolCall::new(
//!     "call-1",
//!     "resolve",
//!     json!({"action": "apply", "reason": "looks right"}),
//! ));
//! assert!(!result.is_error);
//! assert_eq!(result.text(), "Renamed 2 files.");
//! assert!(!session.store().has_pending());
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod apply_observer;
pub mod approval;
mod arguments;
mod call;
mod call_timer;
mod cancel;
mod drive;
mod handoff;
mod limits;
mod output;
mod pack_options;
mod panic;
pub mod pending;
mod registry;
mod resolve;
mod runner;
mod session;
mod session_end;
mod tool;
mod tool_choice;
mod truncate;
mod watchdog;
mod watched;
#[cfg(test)]
mod work_tool;

pub use apply_observer::{ApplyInfo, ApplyObserver, ApplyWatch};
pub use approval::{
    Answer, ApprovalRequest, Approver, Journal, JournalEntry, JournalEvent, Policy, UnknownPolicy,
};
pub use arguments::{ArgumentError, ArgumentValidator};
pub use call::{
    PUSH_FROM_RESOLVE, PUSH_OUTSIDE_CALL, PushRefused, push_for_running_call, run_as_call,
};
pub use call_timer::CallTimer;
pub use cancel::CancellationToken;
pub use drive::{Turns, drive};
pub use handoff::{Spin, SpinMissed};
pub use limits::{CallLimits, DEFAULT_MAX_RESULT_BYTES};
pub use output::ToolResult;
pub use pack_options::PackOptions;
pub use pending::{
    DEFAULT_SOURCE_TOOL_NAME, PendingAction, PendingActionError, PendingActionStore,
    PendingActionView, PendingEntry, PendingSummary, PushEvent, Subscription,
};
pub use registry::{RegisteredTool, RegistryError, ToolRegistry};
pub use resolve::{APPLY_STILL_RUNNING, RESOLVE_TOOL_NAME, ResolveTool};
pub use session::{PREVIEW_REMINDER, Session, SessionMessage, ToolCall};
pub use session_end::SESSION_ENDED;
pub use tool::{LogFn, ProgressFn, Tool, ToolContext};
pub use tool_choice::{ProviderCapabilities, ToolChoice};
pub use truncate::truncation_note;
pub use watched::{CallWatch, WatchedRun, watched_call};
/// The tool types shared with the pack SDK (`xcsh-tool-types`), at their
/// `xcsh_core` paths.
pub use xcsh_tool_types::{
    ContentBlock, InvalidToolName, LogLevel, NotAnObjectSchema, ToolError, ToolHints, ToolOutput,
    check_object_schema, check_tool_name, is_valid_tool_name, offered_schema, panic_message, sync,
};
