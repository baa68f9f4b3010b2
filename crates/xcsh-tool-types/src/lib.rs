//! The tool types the xcsh agent and the tool-pack SDK share.
//!
//! One definition of what a tool returns ([`ToolOutput`] of
//! [`ContentBlock`]s), how it fails ([`ToolError`]), what it says about its
//! effects ([`ToolHints`]), the deferred work behind a preview
//! ([`PendingAction`], with its label rule), the checks every tool's name
//! and schema pass ([`check_tool_name`], [`check_object_schema`],
//! [`offered_schema`]) and their messages, a [`LogLevel`], the unified diff
//! a preview shows of a file ([`unified_diff`], the one `ast_edit` shows),
//! and two small helpers for code that catches panics ([`panic_message`])
//! or shares locks ([`sync`]).
//!
//! Plain Rust: no FFI, no I/O. The session runtime (`xcsh-core`) and the
//! author SDK (`xcsh-plugin-api`) both re-export these types, so an author
//! and the agent see the same values with the same rules; only the SDK's
//! frozen `abi::v1` crosses a library boundary, and the loader converts
//! between it and these types in one place. Depend on `xcsh-plugin-api`
//! (authors) or `xcsh-core` (hosts), not on this crate directly.
//!
//! ```
//! use xcsh_tool_types::{ContentBlock, PendingAction, ToolError, ToolOutput};
//!
//! let output = ToolOutput::text("Renamed 2 files.");
//! assert_eq!(output.content, [ContentBlock::Text("Renamed 2 files.".into())]);
//!
//! // A blank label is refused with the message the agent would give: by
//! // `try_new` where the action is built, by the push after `new`.
//! let refused = PendingAction::try_new(" ", |_reason| Ok(ToolOutput::empty())).unwrap_err();
//! assert_eq!(ToolError::from(refused).message(), "pending action label must not be empty");
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod content;
mod diff;
mod error;
mod hints;
mod log_level;
mod name;
mod output;
mod panic;
mod pending;
mod schema;
pub mod sync;

pub use content::ContentBlock;
pub use diff::{DIFF_CONTEXT_LINES, unified_diff};
pub use error::{PendingActionError, ToolError};
pub use hints::ToolHints;
pub use log_level::LogLevel;
pub use name::{InvalidToolName, check_tool_name, is_valid_tool_name};
pub use output::ToolOutput;
pub use panic::panic_message;
pub use pending::{
    ApplyFn, DEFAULT_SOURCE_TOOL_NAME, MAX_LABEL_CHARS, PendingAction, PendingActionView, RejectFn,
};
pub use schema::{NotAnObjectSchema, check_object_schema, offered_schema};

#[cfg(test)]
mod tests {
    #[test]
    fn public_types_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<crate::ToolOutput>();
        assert_send_sync::<crate::ToolError>();
        assert_send_sync::<crate::PendingAction>();
        assert_send_sync::<crate::PendingActionError>();
    }
}
