//! What can go wrong talking to a model provider.

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
    },
    /// The request never got an answer (connection, timeout, protocol).
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
    /// The environment variable named for the API key is not set.
    #[error("the environment variable {0} (named for the model's API key) is not set")]
    MissingKey(String),
    /// The request was interrupted (Ctrl-C) before the answer was read.
    #[error("interrupted")]
    Interrupted,
}

impl ModelError {
    /// The HTTP status, for a [`ModelError::Status`].
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}
