//! Why an `ast_edit` preview could not be made.

use std::path::PathBuf;

/// A failure of the `ast_edit` preview: bad arguments, a pattern that does
/// not parse, or a path that cannot be searched.
///
/// Each message is one line; the tool shows it to the model as is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AstEditError {
    /// The arguments do not deserialize into [`AstEditParams`](crate::AstEditParams).
    #[error("invalid arguments for ast_edit: {0}")]
    Arguments(#[source] serde_json::Error),
    /// The `language` argument names no supported language.
    #[error("unknown language {name:?}: expected one of {expected}")]
    UnknownLanguage {
        /// The refused name.
        name: String,
        /// The accepted names, comma-separated.
        expected: String,
    },
    /// The pattern is not a single valid syntax node of the language.
    #[error("invalid pattern {pattern:?} for {language}: {reason}")]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// The language it was parsed as.
        language: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A glob filter does not compile.
    #[error("invalid glob {glob:?}: {reason}")]
    InvalidGlob {
        /// The glob as given.
        glob: String,
        /// Why it does not compile (globset's reason, without the glob
        /// that its own message repeats).
        reason: String,
    },
    /// The path to search does not exist or cannot be read.
    #[error("cannot read path {}", xcsh_safe_fs::name::shown(path))]
    Path {
        /// The path, resolved against the working directory.
        path: PathBuf,
        /// The I/O failure.
        #[source]
        source: std::io::Error,
    },
    /// The path to search resolves (after symlinks) outside the working
    /// directory, and the user has not allowed that (the message every
    /// tool gives, from [`xcsh_safe_fs::confine`]).
    #[error(transparent)]
    OutsideRoot(xcsh_safe_fs::ConfineError),
    /// The file named by the path argument cannot be searched: it is not a
    /// regular file, too large, binary, not UTF-8 or unreadable.
    #[error("cannot edit {path}: {reason}")]
    CannotEdit {
        /// The file, as messages name it.
        path: String,
        /// Why, in one line.
        reason: String,
    },
    /// The host cancelled the call.
    #[error("ast_edit was cancelled")]
    Cancelled,
}

impl From<AstEditError> for xcsh_core::ToolError {
    /// The message and its causes on one line, joined by `: `.
    fn from(error: AstEditError) -> Self {
        let mut message = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        Self::new(message)
    }
}
