//! What a person is asked, and how they answer.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// Everything a person needs to decide on one `apply`: what will change
/// (label, the preview the producing tool returned), who produced it and
/// why the model wants it applied.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// The store id of the pending action.
    pub entry_id: u64,
    /// The action's label.
    pub label: String,
    /// The tool whose call pushed the action (its source tool name when
    /// the session did not see the call).
    pub tool: String,
    /// The source tool name the producer gave the action.
    pub source_tool_name: String,
    /// The model's reason for applying.
    pub reason: String,
    /// The text the tool returned when it pushed the action, if the session
    /// saw that call.
    pub preview: Option<String>,
    /// The action's structured details, if any.
    pub details: Option<Value>,
}

impl ApprovalRequest {
    /// The request as plain text for a person: label, tool, the model's
    /// reason and the preview, one per paragraph.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "The model wants to apply \"{}\" (from {}).\nIts reason: {}",
            self.label, self.tool, self.reason
        );
        if let Some(preview) = &self.preview {
            text.push_str("\n\nPreview:\n");
            text.push_str(preview);
        }
        text
    }
}

/// A person's answer (or why none could be had).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Apply it.
    Approve,
    /// Discard it; the model is told, with the reason if one was written.
    Decline {
        /// What the person wrote, if anything.
        reason: Option<String>,
    },
    /// No decision: the action stays pending.
    Cancel,
    /// Nobody could be asked; the text says why (completes
    /// "Apply needs a person's approval (…), but …").
    Unavailable(String),
    /// The question was handed to the front end, which puts it to the
    /// person outside this call (an MCP input-required result) and calls
    /// `resolve` again with their answer. The action stays pending
    /// meanwhile.
    Deferred,
}

impl Answer {
    /// `approve`, `decline`, `cancel`, `unavailable` or `asked`, as the
    /// journal records it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Approve => "approve",
            Self::Decline { .. } => "decline",
            Self::Cancel => "cancel",
            Self::Unavailable(_) => "unavailable",
            Self::Deferred => "asked",
        }
    }
}

/// Puts an `apply` under the `ask` policy to a person. Front ends install
/// one per session: the REPL asks on the terminal, the MCP server through
/// the client's elicitation, `xcsh run` answers from its flags.
///
/// `ask` is called on the thread running `resolve`, which waits for the
/// answer (for as long as the person takes: no time limit applies).
pub trait Approver: Send + Sync {
    /// Asks about `request`.
    fn ask(&self, request: &ApprovalRequest) -> Answer;

    /// Who answers, as the journal records it (`person` by default).
    fn decider(&self) -> String {
        "person".to_owned()
    }
}

impl fmt::Debug for dyn Approver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Approver")
            .field("decider", &self.decider())
            .finish()
    }
}
