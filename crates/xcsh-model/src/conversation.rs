//! The conversation with the model, independent of any provider's wire
//! format: each provider translates it into its own messages.

use serde_json::Value;
use xcsh_core::{Tool, ToolCall, offered_schema};

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// Text from the user: the task, or a hidden reminder from the session.
    User(String),
    /// What the model answered: its text and the tool calls it made.
    Assistant {
        /// The model's text (may be empty).
        text: String,
        /// The tool calls, in order.
        calls: Vec<ToolCall>,
    },
    /// The result of one tool call, as the model reads it.
    ToolResult {
        /// The provider's id of the call.
        call_id: String,
        /// The tool that was called.
        name: String,
        /// The result's text.
        text: String,
        /// True when the call failed.
        is_error: bool,
    },
}

/// A system prompt and the messages so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversation {
    /// The system prompt, if any.
    pub system: Option<String>,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
}

impl Conversation {
    /// A conversation that starts with `task` from the user.
    pub fn new(system: Option<String>, task: impl Into<String>) -> Self {
        Self {
            system,
            messages: vec![Message::User(task.into())],
        }
    }

    /// Appends `message`.
    pub fn push(&mut self, message: Message) {
        self.messages.push(message);
    }
}

/// A tool as a provider offers it to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The JSON schema of its arguments (an object schema).
    pub parameters: Value,
}

impl ToolSpec {
    /// The spec of a session tool, with the schema as it is offered.
    pub fn of(tool: &dyn Tool) -> Self {
        Self {
            name: tool.name().to_owned(),
            description: tool.description().to_owned(),
            parameters: offered_schema(tool.parameters().clone()),
        }
    }
}
