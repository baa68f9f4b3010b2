//! Session runtime of the xcsh agent.
//!
//! `xcsh-core` owns everything a session needs to run tools for a model
//! without touching FFI: tool results ([`ToolOutput`], [`ToolResult`]), the
//! [`Tool`] abstraction, the per-session LIFO [`PendingActionStore`], the
//! hidden `resolve` tool that applies or discards pending actions, and the
//! [`Session`] that steers the model toward `resolve` while anything is
//! pending.
//!
//! The plain tool types ([`ToolOutput`], [`ContentBlock`], [`ToolError`],
//! [`ToolHints`], [`PendingAction`], the name and schema checks) are
//! defined once in `xcsh-tool-types` and re-exported here; the pack SDK
//! re-exports the same types, so a pack and the agent agree on them.
//!
//! # Running calls
//!
//! Everything about running a call under the session's time limit lives in
//! [`call_run`], with two ways in, one per kind of front end:
//!
//! - [`drive`]: a front end that reads calls one after another gives its
//!   loop as [`Turns`]; the loop and its calls share one session thread,
//!   watched from the caller's (`xcsh run`, `xcsh repl`, `xcsh agent`);
//! - [`watched_call`] with a [`CallTimer`]: a front end that already runs
//!   each call on a thread of its own and waits elsewhere (`xcsh mcp`).
//!
//! [`Session::execute`] runs one call the way [`drive`] runs each call when
//! it has no session thread: for tests, benchmarks, the pack authors'
//! harness and the examples here.
//!
//! # Layers
//!
//! From the bottom: the plain types (`xcsh-tool-types`, [`ToolResult`],
//! [`CallLimits`], [`CancellationToken`], [`PackOptions`]); the [`Tool`],
//! its [`ToolCall`] and the registry; the [`pending`] store and the
//! attribution of a push to the call running on its thread ([`call`]); the
//! people in the loop ([`approval`]); the session's workers and the
//! prepared call (inside [`call_run`]); the `resolve` tool; the [`Session`];
//! and on top the ways in of [`call_run`], which hand the session to a
//! front end. Modules import each other by their own paths; this root
//! re-exports only what other crates use.
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
pub mod arguments;
pub mod call;
pub mod call_run;
mod cancel;
mod limits;
mod output;
mod pack_options;
mod panic;
pub mod pending;
mod registry;
mod resolve;
mod session;
mod session_end;
mod tool;
mod tool_choice;
mod truncate;

pub use apply_observer::{ApplyInfo, ApplyObserver, ApplyWatch};
pub use approval::{
    Answer, ApprovalRequest, Approver, Journal, JournalEntry, JournalEvent, Policy,
};
pub use arguments::ArgumentValidator;
pub use call::{PUSH_FROM_RESOLVE, PUSH_OUTSIDE_CALL, push_for_running_call, run_as_call};
pub use call_run::{CallTimer, Spin, Turns, drive, watched_call};
pub use cancel::CancellationToken;
pub use limits::{CallLimits, DEFAULT_MAX_RESULT_BYTES};
pub use output::ToolResult;
pub use pack_options::PackOptions;
pub use pending::{
    PendingAction, PendingActionStore, PendingActionView, PendingEntry, PendingSummary,
    Subscription,
};
pub use registry::RegistryError;
pub use resolve::RESOLVE_TOOL_NAME;
pub use session::{PREVIEW_REMINDER, Session, SessionMessage};
pub use session_end::SESSION_ENDED;
pub use tool::{LogFn, ProgressFn, Tool, ToolCall, ToolContext};
pub use tool_choice::{ProviderCapabilities, ToolChoice};
/// The tool types shared with the pack SDK (`xcsh-tool-types`), at their
/// `xcsh_core` paths.
pub use xcsh_tool_types::{
    ContentBlock, LogLevel, ToolError, ToolHints, ToolOutput, check_object_schema, check_tool_name,
    offered_schema, panic_message, sync,
};
