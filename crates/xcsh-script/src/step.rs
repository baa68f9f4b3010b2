//! What one call did, as one output line.

use serde::{Serialize, Serializer};
use serde_json::Value;
use xcsh_core::{PendingSummary, ToolChoice, ToolResult};

/// How many of the newest pending actions a step carries for display; the
/// count covers them all. Reading more would make every step cost as much
/// as the stack is deep.
pub const PENDING_SHOWN: usize = 5;

/// What one call did, and the session state right after it. Serialises as
/// one output line of the protocol (fields in this order).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// The input line (or REPL entry) number, from 1.
    pub line: usize,
    /// The caller's id.
    pub id: Option<Value>,
    /// The tool called, if the line named one.
    pub tool: Option<String>,
    /// The result.
    pub result: ToolResult,
    /// How many actions are pending, with the newest [`PENDING_SHOWN`]
    /// (serialised as the count).
    #[serde(serialize_with = "count")]
    pub pending: PendingSummary,
    /// The tool choice for the next model request.
    pub tool_choice: ToolChoice,
    /// Hidden messages queued for the model by this call.
    pub reminders: Vec<String>,
}

impl Step {
    /// The step as one line of JSON (see the module docs).
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).expect("a step serialises: its maps have string keys")
    }
}

fn count<S: Serializer>(pending: &PendingSummary, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(pending.count as u64)
}
