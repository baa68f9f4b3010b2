//! One input line: the tool call it asks for, or why it is not one.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::budget;

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
