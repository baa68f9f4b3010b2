//! Safe file work for xcsh tools: what the built-in `ast_edit` does, for
//! every tool pack to use (`xcsh-plugin-api` re-exports this crate as
//! `xcsh_plugin_api::fs`).
//!
//! - [`confine`]: a path a tool was given, resolved (`..`, symbolic links,
//!   dangling ones too) and refused when it leaves the working directory,
//!   with the host's own one-line message, unless the user started xcsh
//!   with `--allow-outside-root` (a pack reads that as
//!   `ToolContext::confined_path`).
//! - [`Snapshot`]: a file as the preview read it (where it really is, the
//!   hash of its bytes).
//! - [`WriteSet`]: at apply time, every file locked, re-checked against its
//!   snapshot and written in place, all or none: a stale file is reported
//!   with [`WriteError::Stale`] and nothing is written; a write that fails
//!   half-way puts the files already written back as they were. Hard
//!   links, owner, group and mode are kept. [`WriteSet::try_add`] refuses
//!   two names of one file already at preview time.
//!
//! - [`name`]: paths as people read them (bytes that are not UTF-8 as
//!   `\xNN`) and taken back as tools are given them ([`name::given`]);
//!   [`confine`] takes them back the same way.
//!
//! Every error converts into the tool's `ToolError` with `?`.
//! - [`open_regular`] / [`read_limited`]: reading only regular files,
//!   never blocking on a named pipe or a device, with a size limit counted
//!   in bytes read.
//!
//! With the `fault-injection` feature (for tests), [`fault`] makes a
//! chosen write fail.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod confine;
mod error;
#[cfg(feature = "fault-injection")]
pub mod fault;
#[cfg(not(feature = "fault-injection"))]
mod fault {
    /// No faults without the feature.
    #[inline(always)]
    pub(crate) fn check(_path: &std::path::Path) -> std::io::Result<()> {
        Ok(())
    }
}
mod hash;
mod in_place;
pub mod name;
mod open;
mod snapshot;
mod write_set;

pub use confine::{ConfineError, confine};
pub use error::WriteError;
pub use hash::ContentHash;
pub use open::{OpenError, describe, open_regular, read_limited};
pub use snapshot::Snapshot;
pub use write_set::{DEFAULT_LIMIT, StalePolicy, WriteReport, WriteSet};
