//! A pending action built by pack code.

use std::fmt;

use serde_json::Value;

use super::{ToolError, ToolOutput};

pub(crate) type ApplyFn = dyn Fn(&str) -> Result<ToolOutput, ToolError> + Send + Sync;
pub(crate) type RejectFn = dyn Fn(&str) -> Result<Option<ToolOutput>, ToolError> + Send + Sync;

/// Deferred work behind a preview, pushed with
/// [`Host::push_pending_action`](super::Host::push_pending_action).
///
/// Nothing runs until the model calls `resolve`: `apply` on apply (it may
/// run again if it fails), `reject` on discard. Both get the model's reason,
/// which is informative only.
pub struct PendingAction {
    pub(crate) label: String,
    pub(crate) source_tool_name: Option<String>,
    pub(crate) details: Option<Value>,
    pub(crate) apply: Box<ApplyFn>,
    pub(crate) reject: Option<Box<RejectFn>>,
}

impl PendingAction {
    /// An action labelled `label` (not empty; best as `Source: summary`)
    /// whose apply runs `apply`.
    pub fn new(
        label: impl Into<String>,
        apply: impl Fn(&str) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    ) -> Self {
        Self {
            label: label.into(),
            source_tool_name: None,
            details: None,
            apply: Box::new(apply),
            reject: None,
        }
    }

    /// Names the producing tool (default `custom_tool`).
    pub fn with_source_tool_name(mut self, name: impl Into<String>) -> Self {
        self.source_tool_name = Some(name.into());
        self
    }

    /// Attaches structured details of the preview.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Runs `reject` on discard; returning `Some` output replaces the
    /// default `Discarded: …` message.
    pub fn with_reject(
        mut self,
        reject: impl Fn(&str) -> Result<Option<ToolOutput>, ToolError> + Send + Sync + 'static,
    ) -> Self {
        self.reject = Some(Box::new(reject));
        self
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }
}

impl fmt::Debug for PendingAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingAction")
            .field("label", &self.label)
            .field("source_tool_name", &self.source_tool_name)
            .field("details", &self.details)
            .field("has_reject", &self.reject.is_some())
            .finish_non_exhaustive()
    }
}
