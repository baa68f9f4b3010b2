//! What the loop asks of a model provider.

use xcsh_core::{CancellationToken, ToolCall, ToolChoice};

use crate::{Conversation, ModelError, ToolSpec};

/// One request: the conversation, the tools offered and the tool choice.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// Everything said so far.
    pub conversation: &'a Conversation,
    /// The tools offered for this request.
    pub tools: &'a [ToolSpec],
    /// How the model may use them.
    pub choice: &'a ToolChoice,
    /// The most tokens the answer may take.
    pub max_tokens: u32,
}

/// Tokens a request took, as the provider counted them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    /// Tokens read (the prompt).
    pub input: u64,
    /// Tokens written (the answer).
    pub output: u64,
}

impl Usage {
    /// Input and output together.
    pub fn total(self) -> u64 {
        self.input + self.output
    }
}

/// The model's answer to one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The model's text (may be empty).
    pub text: String,
    /// The tool calls it made, in order.
    pub calls: Vec<ToolCall>,
    /// What the request took.
    pub usage: Usage,
}

/// A model API: sends one request and reads the whole answer.
pub trait Provider: Send + Sync {
    /// The API's name for logs and messages (`openai`, `anthropic`).
    fn api(&self) -> &'static str;

    /// Sends `request` and reads the answer, streamed where the provider
    /// is configured to stream; `cancel` stops reading a stream.
    ///
    /// # Errors
    ///
    /// [`ModelError::Status`] when the provider refused the request,
    /// others when no valid answer came.
    fn complete(
        &self,
        request: &Request<'_>,
        cancel: &CancellationToken,
    ) -> Result<Reply, ModelError>;
}
