//! The built-in `ast_edit` tool of the xcsh agent: structural
//! search-and-replace on [ast-grep](https://ast-grep.github.io/) that goes
//! through the same preview → pending action → `resolve` flow as tool packs.
//!
//! A call never writes. It parses the files of one language under a path
//! (a file, or a directory walked honouring `.gitignore`, skipping binary
//! and oversized files), reports every match with its line number and a
//! unified diff, and, when anything would change, pushes a pending action
//! labelled `AST Edit: {n} replacement{s} in {m} file{s}` with source tool
//! name `ast_edit`. Zero matches give `No replacements made` and push
//! nothing. A file that does not parse is reported and left alone.
//!
//! Applying the action (`resolve` with `apply`) writes each changed file
//! atomically (temporary file in the same directory, permissions kept,
//! renamed over) and reports `Applied {k} replacement(s) in {j} file(s).`
//! A file whose content changed since the preview is *stale*: it is listed
//! and not written. When every file is stale, apply fails and the action
//! stays pending, because an "applied" that changed nothing would mislead;
//! the message tells the model to discard and preview again.
//!
//! The agent binary calls [`register_builtins`] on every session before
//! loading tool packs, so no pack can shadow `ast_edit`. Tool packs should
//! not depend on this crate.
//!
//! ```
//! use serde_json::json;
//! use xcsh_core::{Session, ToolCall};
//!
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("main.rs");
//! std::fs::write(&file, "fn main() { old(1); }\n")?;
//! let session = Session::new(dir.path());
//! xcsh_ast_edit::register_builtins(&session)?;
//!
//! let preview = session.execute(&ToolCall::new(
//!     "call-1",
//!     "ast_edit",
//!     json!({"pattern": "old($A)", "rewrite": "new($A)", "language": "rust"}),
//! ));
//! assert!(preview.text().starts_with("AST Edit: 1 replacement in 1 file"));
//! assert_eq!(std::fs::read_to_string(&file)?, "fn main() { old(1); }\n");
//!
//! let applied = session.execute(&ToolCall::new(
//!     "call-2",
//!     "resolve",
//!     json!({"action": "apply", "reason": "rename old to new"}),
//! ));
//! assert_eq!(applied.text(), "Applied 1 replacement(s) in 1 file(s).");
//! assert_eq!(std::fs::read_to_string(&file)?, "fn main() { new(1); }\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod apply;
mod builtins;
mod error;
mod filter;
mod label;
mod language;
mod options;
mod params;
mod plan;
mod preview;
mod rewrite;
mod source;
mod tool;
mod walk;

pub use builtins::{register_builtins, register_builtins_with};
pub use error::AstEditError;
pub use language::Language;
pub use options::AstEditOptions;
pub use params::AstEditParams;
pub use preview::NO_REPLACEMENTS;
pub use source::MAX_FILE_BYTES;
pub use tool::{AST_EDIT_TOOL_NAME, AstEditTool};
