//! What can go wrong talking to a model provider.

use std::time::Duration;

/// A failed model request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The provider answered with an HTTP error status.
    #[error("the model server answered HTTP {status}: {message}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The provider's error message, on one line.
        message: String,
        /// How long the server asked to be left alone (`Retry-After` in
        /// seconds), if it said.
        retry_after: Option<Duration>,
    },
    /// The request never got an answer (connection, protocol).
    #[error("cannot reach the model server at {url}")]
    Transport {
        /// Where the request went.
        url: String,
        /// What the HTTP client reported.
        #[source]
        source: ureq::Error,
    },
    /// The answer is not what the provider's API describes.
    #[error("the model server's answer is not valid: {0}")]
    Decode(String),
    /// The answer began but did not end as the API says an answer ends: a
    /// stream without its end marker, an empty body, a connection cut in
    /// the middle.
    #[error("the model server's answer is incomplete: {0}")]
    Incomplete(String),
    /// The answer is larger than a limit.
    #[error("{what} grew past the limit of {limit} bytes ({flag})")]
    TooLarge {
        /// What grew past the limit (`the answer`, `tool call 2's arguments`).
        what: String,
        /// The limit, in bytes.
        limit: u64,
        /// The flag that sets the limit.
        flag: &'static str,
    },
    /// A deadline of the request itself passed: the connection, the wait
    /// for the next bytes, the request's own limit.
    #[error("{0}")]
    Timeout(String),
    /// The loop's time limit passed while the request was out.
    #[error("the time limit ended the request")]
    TimeLimit,
    /// The environment variable named for the API key is not set.
    #[error("the environment variable {0} (named for the model's API key) is not set")]
    MissingKey(String),
    /// The request was interrupted (Ctrl-C) before the answer was read.
    #[error("interrupted")]
    Interrupted,
}

/// HTTP statuses that say "not now" rather than "not this": a timeout, a
/// rate limit, a gateway, an overloaded or unavailable server (529 is
/// Anthropic's "overloaded").
const TRANSIENT_STATUSES: [u16; 6] = [408, 429, 502, 503, 504, 529];

impl ModelError {
    /// The HTTP status, for a [`ModelError::Status`].
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the same request may succeed if sent again shortly: the
    /// server answered a transient status (408, 429, 502, 503, 504, 529),
    /// or the connection failed before any answer (refused, reset, closed
    /// before the status line). An answer that began and broke off, an
    /// error status like 400 or 500, a timeout and a limit are not: the
    /// server spent the tokens or gave its verdict, and a limit is the
    /// user's.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Status { status, .. } => TRANSIENT_STATUSES.contains(status),
            Self::Transport { source, .. } => match source {
                ureq::Error::ConnectionFailed => true,
                ureq::Error::Io(error) => matches!(
                    error.kind(),
                    std::io::ErrorKind::ConnectionRefused
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::BrokenPipe
                        | std::io::ErrorKind::UnexpectedEof
                ),
                _ => false,
            },
            _ => false,
        }
    }

    /// The `Retry-After` the server sent with a [`ModelError::Status`].
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The error and its causes on one line.
    pub fn one_line(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            source = cause.source();
        }
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}
