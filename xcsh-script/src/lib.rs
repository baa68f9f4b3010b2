//! The scripted-session protocol, shared by `xcsh run` and `xcsh repl`.
//!
//! In: one tool call per line, `{"tool": NAME, "arguments": {...}, "id": ...}`
//! (`arguments` defaults to `{}`, `id` is any JSON value and is echoed back).
//! Out: one [`Step`] per call, as JSON:
//!
//! ```json
//! {"line": 1, "id": null, "tool": "batch_rename_preview",
//!  "result": {"content": [...], "details": {...}, "isError": false},
//!  "pending": 1, "toolChoice": {"type": "tool", "name": "resolve"},
//!  "reminders": ["<system-reminder>\n…\n</system-reminder>"]}
//! ```
//!
//! A line that is not a tool call, an unknown tool and invalid arguments each
//! give an error result for that line; the session goes on and nothing
//! pending is lost. A line's JSON may take at most three times the line's
//! size in memory (plus 1 MiB); one that would take more is refused.
//!
//! It drives any [`xcsh_core::Session`] and knows nothing of where the
//! lines come from: `xcsh run` reads a file or standard input, the REPL a
//! terminal, the benchmarks and the fuzz target a buffer.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use xcsh_core::{PendingSummary, Session, ToolChoice, ToolResult};

/// How many of the newest pending actions a step carries for display; the
/// count covers them all. Reading more would make every step cost as much
/// as the stack is deep.
pub const PENDING_SHOWN: usize = 5;

/// One tool call read from input.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The caller's id, echoed back.
    pub id: Option<Value>,
    /// The tool's name.
    pub tool: String,
    /// The arguments (validated by the session, not here).
    pub arguments: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    tool: String,
    #[serde(default = "empty_object")]
    arguments: Value,
    #[serde(default)]
    id: Option<Value>,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// Why a line is not a tool call.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    /// The line's `id`, when it had one.
    pub id: Option<Value>,
    /// `invalid JSON` or `invalid tool call`.
    pub kind: &'static str,
    /// What is wrong, one line.
    pub cause: String,
}

impl Rejected {
    /// The message for input line `line`, e.g.
    /// `invalid JSON on line 3: expected value at line 1 column 1`.
    pub fn on_line(&self, line: usize) -> String {
        format!("{} on line {line}: {}", self.kind, self.cause)
    }
}

/// Parses one input line. Returns `None` for blank lines and `#` comments.
pub fn parse_line(text: &str) -> Option<Result<Request, Rejected>> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return None;
    }
    Some(parse_request(text))
}

/// Parses one JSON tool call.
///
/// # Errors
///
/// [`Rejected`] naming what is wrong.
pub fn parse_request(text: &str) -> Result<Request, Rejected> {
    let value: Value = budget::parse(text).map_err(|error| {
        let cause = one_line(error.to_string());
        let kind = if cause.starts_with(&budget::over_budget_message(text.len())) {
            "invalid tool call"
        } else {
            "invalid JSON"
        };
        Rejected {
            id: None,
            kind,
            cause,
        }
    })?;
    let Value::Object(object) = &value else {
        return Err(Rejected {
            id: None,
            kind: "invalid tool call",
            cause: r#"expected an object like {"tool": NAME, "arguments": {...}}"#.to_owned(),
        });
    };
    let id = object.get("id").cloned();
    let wire: Wire = serde_json::from_value(value).map_err(|error| Rejected {
        id,
        kind: "invalid tool call",
        cause: one_line(error.to_string()),
    })?;
    Ok(Request {
        id: wire.id,
        tool: wire.tool,
        arguments: wire.arguments,
    })
}

/// `text` with control characters escaped (`\n` as `\\n`): serde's
/// messages quote input, such as a field name with a newline in it, and a
/// rejection is one line.
fn one_line(text: String) -> String {
    if !text.contains(char::is_control) {
        return text;
    }
    text.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

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

/// Runs calls in a session and reports each as a [`Step`].
pub struct Driver<'a> {
    session: &'a Session,
    steps: Steps,
}

impl std::fmt::Debug for Driver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl<'a> Driver<'a> {
    /// A driver over `session` for a provider that can force a named tool.
    pub fn new(session: &'a Session) -> Self {
        Self {
            session,
            steps: Steps::new(),
        }
    }

    /// Shows each partial result a tool reports (`report_progress`)
    /// through `show` while the call runs.
    pub fn showing_progress(mut self, show: ShowProgress) -> Self {
        self.steps = self.steps.showing_progress(show);
        self
    }

    /// Runs `request`, entry number `line`.
    pub fn call(&self, line: usize, request: Request) -> Step {
        let (started, call, context) = self.steps.start(self.session, line, request);
        let result = self.session.execute_owned(call, context);
        self.steps.finish(self.session, started, result)
    }

    /// Reports a line that was not a tool call; nothing runs.
    pub fn reject(&self, line: usize, id: Option<Value>, message: String) -> Step {
        self.steps.reject(self.session, line, id, message)
    }
}

mod budget;
mod steps;

pub use steps::{ShowProgress, Started, Steps};

#[cfg(test)]
mod tests;
