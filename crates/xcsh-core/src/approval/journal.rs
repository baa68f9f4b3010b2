//! What a session reports for its journal: every push, every resolve and
//! every person's answer.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::Policy;

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JournalEvent {
    /// A tool call pushed a pending action (with its preview).
    Push,
    /// A person (or a run's flag) answered an `ask`.
    Answer,
    /// `resolve` (or the end of the session) applied or discarded an
    /// action, or refused or failed to.
    Resolve,
    /// A person (or the model, where allowed) undid an apply.
    Undo,
}

/// One thing that happened to a pending action, as the session knows it.
/// Front ends add the time, the session and the pack.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    /// What happened.
    pub event: JournalEvent,
    /// The tool whose call pushed the action.
    pub tool: String,
    /// The action's label.
    pub label: String,
    /// The source tool name the producer gave the action.
    pub source_tool_name: String,
    /// The policy in force for the tool.
    pub policy: Policy,
    /// `apply` or `discard` (resolve and answer events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The reason given (the model's, the person's, or the session end's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Who decided: `model`, `person`, `policy`, a flag such as
    /// `--approve-all`, or `session end`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// What came of it: `pushed`, `applied`, `discarded`, `declined`,
    /// `approve`, `decline`, `cancel`, `unavailable`, `asked` (the question
    /// went out; the answer comes later), `refused`, `failed`.
    pub outcome: String,
    /// The error text, when it failed or was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The preview the tool returned (push events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Structured details: the action's on a push, the result's on a
    /// resolve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// The undo snapshot of an apply (resolve events), or the snapshot an
    /// undo restored (undo events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
}

/// Where a session's journal entries go. Recording must not fail the
/// session: an implementation that cannot write warns and goes on.
pub trait Journal: Send + Sync {
    /// Records one entry.
    fn record(&self, entry: &JournalEntry);

    /// The session ends ([`Session::end`](crate::Session::end)): writes
    /// out and flushes to disk whatever the journal holds back (a journal
    /// that batches its work). Does nothing by default.
    fn flush(&self) {}
}

impl fmt::Debug for dyn Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Journal")
    }
}
