//! What a model server may send in one answer, and how long its request
//! may take: every byte and every wait is bounded, whatever the server
//! does.

use std::time::Duration;

/// What one answer may hold, and how long one request may take. The
/// loop's time limit shortens every wait further (see
/// [`Request::deadline`](crate::Request::deadline)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerLimits {
    /// The most bytes of one answer's body as the server sends it,
    /// streamed or not (`--max-answer-bytes`).
    pub bytes: u64,
    /// The most bytes of one tool call's arguments (`--max-argument-bytes`).
    pub argument_bytes: u64,
    /// The longest one request may take, from connecting to the answer's
    /// last byte (`--request-timeout`); `None`: only the loop's time limit.
    pub request_time: Option<Duration>,
    /// The longest wait for the next bytes of an answer: its headers, then
    /// each chunk of it (`--read-timeout`); `None`: only the request's
    /// limits. A whole (non-streamed) answer's headers come when the model
    /// has finished, so this is also the longest a model may think.
    pub read_time: Option<Duration>,
    /// The longest a connection may take to open (TLS included).
    pub connect_time: Duration,
}

impl AnswerLimits {
    /// `--max-answer-bytes`' default: 16 MiB, room for a streamed answer of
    /// tens of thousands of tokens with every chunk's framing.
    pub const DEFAULT_BYTES: u64 = 16 * 1024 * 1024;
    /// `--max-argument-bytes`' default: 1 MiB of JSON in one call.
    pub const DEFAULT_ARGUMENT_BYTES: u64 = 1024 * 1024;
    /// `--request-timeout`'s default.
    pub const DEFAULT_REQUEST_TIME: Duration = Duration::from_secs(600);
    /// `--read-timeout`'s default.
    pub const DEFAULT_READ_TIME: Duration = Duration::from_secs(300);
    /// How long a connection may take to open.
    pub const CONNECT_TIME: Duration = Duration::from_secs(30);
}

impl Default for AnswerLimits {
    fn default() -> Self {
        Self {
            bytes: Self::DEFAULT_BYTES,
            argument_bytes: Self::DEFAULT_ARGUMENT_BYTES,
            request_time: Some(Self::DEFAULT_REQUEST_TIME),
            read_time: Some(Self::DEFAULT_READ_TIME),
            connect_time: Self::CONNECT_TIME,
        }
    }
}

/// `{n} s`, with the fraction only when there is one.
pub(crate) fn seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    format!("{seconds} s")
}
