//! How far one model loop may go.

use std::time::Duration;

/// How far one loop may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The most requests.
    pub turns: u32,
    /// The most tokens, input and output of every request added up.
    pub tokens: u64,
    /// The most tokens of one answer.
    pub answer_tokens: u32,
    /// The longest the loop may run (checked between requests and tool
    /// calls; a request's own timeout is the provider's setting).
    pub time: Option<Duration>,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            turns: 50,
            tokens: 1_000_000,
            answer_tokens: 4096,
            time: Some(Duration::from_secs(30 * 60)),
        }
    }
}
