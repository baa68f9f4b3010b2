//! What the loop asks of a model provider.

use std::time::Instant;

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
    /// When the loop's time limit passes: every wait of the request ends
    /// by then ([`ModelError::TimeLimit`]).
    pub deadline: Option<Instant>,
}

/// Tokens a request took, as the provider counted them, or as xcsh
/// estimated them when the provider's answer did not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    /// Tokens read (the prompt).
    pub input: u64,
    /// Tokens written (the answer).
    pub output: u64,
    /// True when the answer carried no count and these are xcsh's
    /// estimate: one token for every [`Usage::BYTES_PER_TOKEN`] bytes of
    /// the request's body and of the answer's text and calls.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Usage {
    /// Bytes counted as one token in an estimate (English text and JSON
    /// average about four).
    pub const BYTES_PER_TOKEN: u64 = 4;

    /// Input and output together.
    pub fn total(self) -> u64 {
        self.input + self.output
    }

    /// Whether the provider counted nothing.
    pub fn is_empty(self) -> bool {
        self.input == 0 && self.output == 0
    }

    /// An estimate for a request of `request_bytes` answered with `reply`.
    pub fn estimate(request_bytes: usize, reply: &Reply) -> Self {
        let answer_bytes = reply.text.len()
            + reply
                .calls
                .iter()
                .map(|call| call.name.len() + call.arguments.to_string().len())
                .sum::<usize>();
        let tokens = |bytes: usize| (bytes as u64).div_ceil(Self::BYTES_PER_TOKEN);
        Self {
            input: tokens(request_bytes),
            output: tokens(answer_bytes).max(1),
            estimated: true,
        }
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

impl Reply {
    /// This reply with its usage estimated when the provider counted
    /// nothing (a server that sends no usage, or a stream without it).
    pub(crate) fn counted(mut self, request_bytes: usize) -> Self {
        if self.usage.is_empty() {
            self.usage = Usage::estimate(request_bytes, &self);
        }
        self
    }
}

/// A model API: sends one request and reads the whole answer.
pub trait Provider: Send + Sync {
    /// The API's name for logs and messages (`openai`, `anthropic`).
    fn api(&self) -> &'static str;

    /// Sends `request` and reads the whole answer, streamed where the
    /// provider is configured to stream, within the provider's
    /// [`AnswerLimits`](crate::AnswerLimits) and `request.deadline`;
    /// `cancel` (Ctrl-C) ends the request at once.
    ///
    /// # Errors
    ///
    /// [`ModelError::Status`] when the provider refused the request,
    /// [`ModelError::Interrupted`] once `cancel` is cancelled,
    /// [`ModelError::TimeLimit`] at the deadline, others when no complete,
    /// valid answer within the limits came.
    fn complete(
        &self,
        request: &Request<'_>,
        cancel: &CancellationToken,
    ) -> Result<Reply, ModelError>;
}
