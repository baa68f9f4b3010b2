//! One pending action: a label, its source, optional details, and the code
//! that applies or rejects it.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::{PendingActionError, ToolError, ToolOutput};

/// The source tool name of an action whose producer did not name one.
pub const DEFAULT_SOURCE_TOOL_NAME: &str = "custom_tool";

/// The longest label kept, in characters. A label is a one-line summary
/// shown on every step, in warnings, prompts and the journal; a longer one
/// is cut here and ends with `…`, so a pack cannot make each of those
/// copies as large as its input.
pub const MAX_LABEL_CHARS: usize = 500;

/// Applies an action; gets the model's reason (informative only).
pub type ApplyFn = dyn Fn(&str) -> Result<ToolOutput, ToolError> + Send + Sync;

/// Cleans up after a discard; gets the model's reason. `Ok(None)` keeps the
/// default discard message.
pub type RejectFn = dyn Fn(&str) -> Result<Option<ToolOutput>, ToolError> + Send + Sync;

/// A preview's deferred work, waiting for `resolve`.
///
/// Nothing runs until the model resolves it: `apply` on apply (it may run
/// more than once: a failed apply leaves the action pending and the model
/// may try again), `reject` on discard. Both get the model's reason, which
/// is informative only.
///
/// The label is required and must not be blank. [`PendingAction::new`]
/// (the 1.0 SDK's constructor, kept for source compatibility) takes any
/// label and the push refuses a blank one; [`PendingAction::try_new`]
/// refuses it where the action is built. Both refuse with the same
/// message, `pending action label must not be empty`.
///
/// ```
/// use xcsh_tool_types::{PendingAction, ToolOutput};
///
/// let action = PendingAction::new("Rename: 2 files", |_reason| Ok(ToolOutput::text("Renamed 2 files.")))
///     .with_source_tool_name("rename_preview");
/// assert_eq!(action.label(), "Rename: 2 files");
/// assert_eq!(action.apply("looks right").unwrap(), ToolOutput::text("Renamed 2 files."));
/// ```
pub struct PendingAction {
    label: String,
    source_tool_name: String,
    details: Option<Value>,
    apply: Box<ApplyFn>,
    reject: Option<Box<RejectFn>>,
}

impl PendingAction {
    /// An action labelled `label` (best as `Source: summary`) whose apply
    /// runs `apply`.
    ///
    /// A label over [`MAX_LABEL_CHARS`] characters is cut to that many,
    /// ending with `…`. A blank label is kept here and refused when the
    /// action is pushed ([`check`](Self::check)); use
    /// [`try_new`](Self::try_new) to refuse it where it is built.
    pub fn new(
        label: impl Into<String>,
        apply: impl Fn(&str) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    ) -> Self {
        let mut label = label.into();
        let mut chars = label.char_indices();
        if let (Some((cut, _)), Some(_)) = (chars.nth(MAX_LABEL_CHARS - 1), chars.next()) {
            label.truncate(cut);
            label.push('…');
        }
        Self {
            label,
            source_tool_name: DEFAULT_SOURCE_TOOL_NAME.to_owned(),
            details: None,
            apply: Box::new(apply),
            reject: None,
        }
    }

    /// As [`new`](Self::new), refusing a blank label.
    ///
    /// # Errors
    ///
    /// [`PendingActionError::EmptyLabel`] if `label` is blank.
    pub fn try_new(
        label: impl Into<String>,
        apply: impl Fn(&str) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    ) -> Result<Self, PendingActionError> {
        let action = Self::new(label, apply);
        action.check()?;
        Ok(action)
    }

    /// Checks what a push requires of the action: a label that is not
    /// blank.
    ///
    /// # Errors
    ///
    /// [`PendingActionError::EmptyLabel`] if the label is empty or only
    /// white space.
    pub fn check(&self) -> Result<(), PendingActionError> {
        if self.label.trim().is_empty() {
            return Err(PendingActionError::EmptyLabel);
        }
        Ok(())
    }

    /// Names the tool that produced the preview (default `custom_tool`).
    pub fn with_source_tool_name(mut self, name: impl Into<String>) -> Self {
        self.source_tool_name = name.into();
        self
    }

    /// Attaches structured details of the preview.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Runs `reject` when the action is discarded; returning `Some` output
    /// replaces the default `Discarded: …` message.
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

    /// The name of the tool that produced it.
    pub fn source_tool_name(&self) -> &str {
        &self.source_tool_name
    }

    /// Structured details of the preview.
    pub fn details(&self) -> Option<&Value> {
        self.details.as_ref()
    }

    /// True if the action has reject code.
    pub fn has_reject(&self) -> bool {
        self.reject.is_some()
    }

    /// Applies the action.
    ///
    /// # Errors
    ///
    /// Whatever the apply code reports.
    pub fn apply(&self, reason: &str) -> Result<ToolOutput, ToolError> {
        (self.apply)(reason)
    }

    /// Runs the reject code, `None` if there is none.
    pub fn reject(&self, reason: &str) -> Option<Result<Option<ToolOutput>, ToolError>> {
        self.reject.as_ref().map(|reject| reject(reason))
    }

    /// What listeners and front ends see of the action.
    pub fn view(&self) -> PendingActionView {
        PendingActionView {
            label: self.label.clone(),
            source_tool_name: self.source_tool_name.clone(),
        }
    }
}

impl fmt::Debug for PendingAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingAction")
            .field("label", &self.label)
            .field("source_tool_name", &self.source_tool_name)
            .field("details", &self.details)
            .field("has_reject", &self.has_reject())
            .finish_non_exhaustive()
    }
}

/// The public face of a pending action: its label and source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingActionView {
    /// The action's label.
    pub label: String,
    /// The tool that produced it.
    pub source_tool_name: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_over_long_label_is_cut_to_the_limit_with_an_ellipsis() {
        let apply = |_: &str| Ok(ToolOutput::default());
        let exact = "é".repeat(MAX_LABEL_CHARS);
        assert_eq!(PendingAction::new(exact.clone(), apply).label(), exact);
        let long = PendingAction::new("é".repeat(MAX_LABEL_CHARS + 1), apply);
        assert_eq!(long.label().chars().count(), MAX_LABEL_CHARS);
        assert_eq!(
            long.label(),
            format!("{}…", "é".repeat(MAX_LABEL_CHARS - 1))
        );
    }

    #[test]
    fn empty_label_is_refused() {
        for label in ["", "   "] {
            let err = PendingAction::try_new(label, |_| Ok(ToolOutput::default())).unwrap_err();
            assert_eq!(err, PendingActionError::EmptyLabel);
            assert_eq!(err.to_string(), "pending action label must not be empty");
            let built = PendingAction::new(label, |_| Ok(ToolOutput::default()));
            assert_eq!(built.check(), Err(PendingActionError::EmptyLabel));
        }
    }

    #[test]
    fn source_tool_name_defaults_to_custom_tool() {
        let action = PendingAction::new("x", |_| Ok(ToolOutput::default()));
        assert_eq!(action.source_tool_name(), "custom_tool");
        let action = action.with_source_tool_name("ast_edit");
        assert_eq!(action.source_tool_name(), "ast_edit");
    }

    #[test]
    fn reject_is_optional() {
        let action = PendingAction::new("x", |_| Ok(ToolOutput::default()));
        assert!(!action.has_reject());
        assert!(action.reject("no").is_none());
        let action = action.with_reject(|reason| Ok(Some(ToolOutput::text(reason))));
        assert!(action.has_reject());
        assert_eq!(
            action.reject("why").unwrap().unwrap(),
            Some(ToolOutput::text("why"))
        );
    }
}
