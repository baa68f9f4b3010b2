//! The built-in `ast_edit` tool of the xcsh agent: structural
//! search-and-replace on [ast-grep](https://ast-grep.github.io/) that goes
//! through the same preview → pending action → `resolve` flow as tool packs.
//!
//! A call never writes. It parses the files of one language under a path
//! (a file, or a directory walked honouring `.gitignore`), reports every
//! match with its line number and a unified diff, and, when anything would
//! change, pushes a pending action labelled
//! `AST Edit: {n} replacement{s} in {m} file{s}` with source tool name
//! `ast_edit`. Zero matches give `No replacements made` and push nothing.
//! A file that does not parse is reported and left alone.
//!
//! **What is read.** Only regular files: they are opened without blocking
//! and checked on the opened file, so a named pipe, `/dev/zero`,
//! `/dev/stdin` or a socket is refused at once instead of hanging or
//! feeding the agent forever. At most [`MAX_FILE_BYTES`] + 1 bytes are
//! read, whatever size the file system reports. A file the `path`
//! argument names that cannot be searched (not a regular file, too large,
//! binary, not UTF-8) is an error, `cannot edit {path}: {why}`; files a
//! directory walk meets are skipped and listed under `Skipped:` in the
//! preview (and its `skipped` details), also after `No replacements made`.
//!
//! **Where.** The path is resolved, symlinks included, and refused when it
//! leads outside the session's working directory (`..`, absolute paths,
//! links leading out) unless [`AstEditOptions::allow_outside_root`] is set
//! (the agent's `--allow-outside-root`). Previews name files by where they
//! really are: through `link.rs`, the preview shows `real/a.rs`.
//!
//! **Applying** the action (`resolve` with `apply`) takes an exclusive
//! lock on each file, re-reads it through the locked descriptor, and
//! writes it in place, so the file keeps its inode: hard links, owner,
//! group, mode and extended attributes survive. Before the write the old
//! content is saved beside the file as `.{name}.ast_edit-backup-*` and
//! flushed; it is removed once the new content is on disk, so a backup
//! left behind means an apply was interrupted and holds the old content.
//! Readers during the write may see it half done (the price of keeping
//! the inode). It reports `Applied {k} replacement(s) in {j} file(s).`
//! A file whose content changed since the preview, or whose path now leads
//! elsewhere, is *stale*: it is listed and not written. Two applies of the
//! same file at once are serialised by the lock, so the second finds the
//! first's edit and reports the file stale instead of losing it (the lock
//! is advisory: an editor that ignores it can still write in between).
//! The files it writes are written all or none: when one write fails, the
//! files written before it get their old content back and the apply fails
//! naming the file (the writer is [`xcsh_safe_fs::WriteSet`], the one packs
//! use). When every file is stale, apply fails and the action stays pending,
//! because an "applied" that changed nothing would mislead; the message
//! tells the model to discard and preview again.
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
mod nullable;
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
