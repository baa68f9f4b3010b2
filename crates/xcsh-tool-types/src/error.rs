//! The error a tool, an apply or a reject reports.

use std::fmt;

use serde_json::Value;

/// A failure reported by tool code: a one-line message for the model and
/// optional structured details.
///
/// Tool code builds one with [`ToolError::new`], or converts from a `String`,
/// a `&str`, an I/O error, a JSON error or a refused [`PendingAction`]
/// with `?`.
///
/// [`PendingAction`]: crate::PendingAction
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    message: String,
    details: Option<Value>,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            details: None,
        }
    }

    /// Attaches structured details. A tool pack's error reaches the agent
    /// as its message only (ABI v1 carries no error details): details are
    /// for errors of the agent's own tools.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The structured details, if any.
    pub fn details(&self) -> Option<&Value> {
        self.details.as_ref()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(error: std::io::Error) -> Self {
        Self::new(error.to_string())
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(error: serde_json::Error) -> Self {
        Self::new(error.to_string())
    }
}

impl From<PendingActionError> for ToolError {
    fn from(error: PendingActionError) -> Self {
        Self::new(error.to_string())
    }
}

/// Why a pending action could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum PendingActionError {
    /// The label is empty (or only white space).
    #[error("pending action label must not be empty")]
    EmptyLabel,
}
