//! Test support for xcsh tool packs: the counterpart of nushell's
//! `nu-plugin-test-support`.
//!
//! [`PackTest`] takes a pack's factory (the function given to
//! `export_tool_pack!`), calls it in-process, without building or opening a
//! library, and runs the pack's tools through the same host path as a pack
//! the agent loaded: the v1 ABI and the loader's adapter (schema checks,
//! the host API, pushes), then an `xcsh-core` session (argument validation
//! against the schema, the pending-action stack, `resolve` apply and
//! discard, the reminders, the tool choice). Tests assert on what the model
//! and the user would see.
//!
//! Add it as a dev-dependency of the pack (by version, or by a path to a
//! clone of the xcsh repository, as `xcsh pack new --sdk` writes it), with
//! `crate-type = ["cdylib", "rlib"]` in the pack so its tests can link it:
//!
//! ```toml
//! [dev-dependencies]
//! xcsh-pack-test = "0.1"
//! ```
//!
//! A pack with one preview tool, and its test (in a real pack, the test
//! lives in `tests/` and the pack in `src/`):
//!
//! ```
//! mod my_pack {
//!     use xcsh_plugin_api::prelude::*;
//!
//!     #[params]
//!     pub struct Params {
//!         /// The file to delete, relative to the working directory.
//!         pub file: String,
//!     }
//!
//!     pub fn tools(_host: &Host) -> Result<ToolPack, ToolError> {
//!         let preview = FnTool::new(
//!             "delete_preview",
//!             "Delete",
//!             "Previews deleting a file; resolve applies it.",
//!             |p: Params, ctx: &ToolContext<'_>| {
//!                 // A path the model gave: refused outside the working
//!                 // directory, with the agent's own message.
//!                 let path = ctx.confined_path(&p.file)?;
//!                 if !path.is_file() {
//!                     return Err(ToolError::new(format!("{}: no such file", p.file)));
//!                 }
//!                 let label = format!("Delete: {}", p.file);
//!                 ctx.push_pending_action(
//!                     PendingAction::new(label, move |_reason| {
//!                         std::fs::remove_file(&path)?;
//!                         Ok(ToolOutput::text("Deleted 1 file."))
//!                     })
//!                     .with_source_tool_name("delete_preview"),
//!                 )?;
//!                 Ok(ToolOutput::text(format!("Would delete {}", p.file)))
//!             },
//!         )
//!         .with_hints(ToolHints::PREVIEW);
//!         Ok(ToolPack::new().with_tool(preview))
//!     }
//!
//!     xcsh_plugin_api::export_tool_pack!(tools);
//! }
//!
//! use xcsh_pack_test::{PREVIEW_REMINDER, PackTest, ToolChoice, json};
//!
//! // A session over the pack, in a fresh temporary directory.
//! let pack = PackTest::new("my-pack", my_pack::tools).unwrap();
//! pack.write("notes.txt", "text");
//!
//! let preview = pack.call("delete_preview", json!({"file": "notes.txt"}));
//! assert!(!preview.is_error, "{}", preview.text());
//! assert_eq!(preview.text(), "Would delete notes.txt");
//! assert_eq!(pack.pending_labels(), ["Delete: notes.txt"]);
//! assert_eq!(pack.take_reminders(), [PREVIEW_REMINDER]);
//! assert_eq!(pack.tool_choice(), ToolChoice::Tool { name: "resolve".into() });
//! assert!(pack.dir().join("notes.txt").exists(), "a preview changes nothing");
//!
//! let applied = pack.apply("the notes are obsolete");
//! assert_eq!(applied.text(), "Deleted 1 file.");
//! assert!(!pack.dir().join("notes.txt").exists());
//! assert!(pack.pending_labels().is_empty());
//!
//! // A path out of the working directory is refused, nothing pushed.
//! let outside = pack.call("delete_preview", json!({"file": "../notes.txt"}));
//! assert!(outside.is_error);
//! assert!(outside.text().starts_with("path ../notes.txt is outside the working directory"));
//! assert!(pack.pending_labels().is_empty());
//!
//! // Invalid arguments never reach the pack; the error names the field.
//! let refused = pack.call("delete_preview", json!({"flie": "notes.txt"}));
//! assert!(refused.is_error);
//! assert_eq!(
//!     refused.text(),
//!     "Invalid arguments for delete_preview: \
//!      Additional properties are not allowed ('flie' was unexpected); \
//!      \"file\" is a required property"
//! );
//! ```
//!
//! The pack's tools run on the test's thread, without a time limit: a
//! panic's backtrace points into the pack. To test what a pack does when a
//! call or an apply runs out of time, set one with
//! [`PackTest::with_time_limit`] (calls then run on threads of their own,
//! as in the agent); to test how a tool stops when its call is cancelled,
//! call it with [`PackTest::call_with_cancellation`].
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod error;
mod pack_test;
mod pending;
mod setup;

pub use builder::PackTestBuilder;
pub use error::PackTestError;
pub use pack_test::PackTest;
pub use pending::PendingInfo;
/// A pack's factory: the function given to `export_tool_pack!`.
pub use xcsh_plugin_api::Factory;
/// What [`PackTest::fail_nth_write`] returns: the failure is injected until it drops.
pub use xcsh_safe_fs::fault::{FaultGuard, INJECTED_MESSAGE};

/// What [`PackTest::tools`] returns: the host's view of a registered tool
/// (its name, label, description, offered schema and hints), not the SDK's
/// `Tool` a pack implements.
pub use xcsh_core::Tool as HostTool;

pub use serde_json::{Value, json};
pub use xcsh_core::{
    CancellationToken, ContentBlock, PREVIEW_REMINDER, SESSION_ENDED, Session, ToolChoice,
    ToolHints, ToolResult,
};
