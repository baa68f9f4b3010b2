//! Why an apply of a [`WriteSet`](crate::WriteSet) wrote nothing.

use std::io;
use std::path::PathBuf;

use crate::OpenError;

/// Why an apply failed. Every failure but [`WriteError::Restore`] leaves
/// every file exactly as it was before the apply.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Files changed since the preview (or are gone, or their path leads
    /// elsewhere now): nothing was written.
    #[error(
        "changed since the preview, so nothing was written: {}. \
         Discard this action and preview again.",
        files.join(", ")
    )]
    Stale {
        /// The stale files, as messages name them.
        files: Vec<String>,
    },
    /// A file could not be opened, locked or read for the check (it became
    /// a named pipe, a directory, unreadable...): nothing was written.
    #[error("could not write {file}: {source}; no file was changed")]
    Check {
        /// The file, as messages name it.
        file: String,
        /// Why.
        #[source]
        source: OpenError,
    },
    /// Two paths of the set are one file (hard links): writing both would
    /// lose one edit.
    #[error(
        "{first} and {second} are the same file (hard links): list it under one name only; \
         no file was changed"
    )]
    SameFile {
        /// The first path, as messages name it.
        first: String,
        /// The second.
        second: String,
    },
    /// A write failed; the files written before it were restored.
    #[error("could not write {file}: {source}; no file was changed")]
    Write {
        /// The file, as messages name it.
        file: String,
        /// The I/O failure.
        #[source]
        source: io::Error,
    },
    /// A write failed and restoring a file written before it failed too:
    /// that file's old content was kept in its backup.
    #[error(
        "could not write {file}: {source}; restoring {restored} failed as well ({restore_error}): \
         its content before the apply is in {}",
        backup.display()
    )]
    Restore {
        /// The file whose write failed.
        file: String,
        /// That failure.
        #[source]
        source: io::Error,
        /// The file that could not be restored.
        restored: String,
        /// Why.
        restore_error: io::Error,
        /// Where its old content is.
        backup: PathBuf,
    },
}

impl WriteError {
    /// True if the files simply changed since the preview (applying again
    /// cannot succeed; a fresh preview is needed).
    pub fn is_stale(&self) -> bool {
        matches!(self, Self::Stale { .. })
    }
}

/// An apply's `?`: the one-line message is the tool's error, so the
/// action stays pending and the model reads why.
impl From<WriteError> for xcsh_tool_types::ToolError {
    fn from(error: WriteError) -> Self {
        Self::new(error.to_string())
    }
}

/// A preview's `?` on [`Snapshot::take`](crate::Snapshot::take): its
/// one-line message is the tool's error.
impl From<OpenError> for xcsh_tool_types::ToolError {
    fn from(error: OpenError) -> Self {
        Self::new(error.to_string())
    }
}

/// [`confine`](crate::confine)'s refusal as the tool's error, with the
/// host's own message.
impl From<crate::ConfineError> for xcsh_tool_types::ToolError {
    fn from(error: crate::ConfineError) -> Self {
        Self::new(error.to_string())
    }
}
