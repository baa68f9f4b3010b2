//! How far one model loop may go.

use std::time::Duration;

/// How far one loop may go. What one answer may hold, and how long one
/// request may wait, are the provider's [`AnswerLimits`](crate::AnswerLimits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The most requests that got an answer or a refusal (a retried
    /// failure is not one more).
    pub turns: u32,
    /// The most tokens, input and output of every request added up.
    pub tokens: u64,
    /// The most tokens of one answer (`max_tokens` of each request).
    pub answer_tokens: u32,
    /// The most tool calls of one answer that run; the others are refused
    /// back to the model, not run.
    pub calls_per_answer: u32,
    /// The longest the loop may run: every request and every wait for a
    /// retry ends by then.
    pub time: Option<Duration>,
    /// How many times a request that failed for a transient reason
    /// ([`ModelError::is_transient`](crate::ModelError::is_transient)) is
    /// sent again.
    pub retries: u32,
    /// The wait before the first retry; each next one waits twice as long
    /// (or as long as the server's `Retry-After`, if longer).
    pub retry_delay: Duration,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            turns: 50,
            tokens: 1_000_000,
            answer_tokens: 4096,
            calls_per_answer: 16,
            time: Some(Duration::from_secs(30 * 60)),
            retries: 2,
            retry_delay: Duration::from_secs(1),
        }
    }
}
