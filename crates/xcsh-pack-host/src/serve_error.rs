//! Why `xcsh pack-host` stopped serving: each a line the agent shows
//! among the pack's stderr.

use std::io;

use xcsh_isolate_protocol::frame::FrameError;

/// Why the pack's process could not serve (or serve on).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// A step of setting up the protocol pipes failed.
    #[error("{what}: {error}")]
    Setup {
        /// The step, e.g. `dup stdin`.
        what: &'static str,
        /// What the system said (in the message, so not a `source`: the
        /// line is whole wherever it is printed).
        error: io::Error,
    },
    /// The agent ended the pipe before it said hello.
    #[error("the agent closed the pipe before its hello")]
    NoHello,
    /// The agent's protocol version is not this process's.
    #[error("the agent speaks isolation protocol {agent}, this process {ours}")]
    Protocol {
        /// The agent's version.
        agent: u32,
        /// This process's version.
        ours: u32,
    },
    /// The agent's first request was not to open a pack.
    #[error("the agent did not ask to open a pack")]
    NoOpen,
    /// The hello or the open request could not be read, or the hello
    /// not written.
    #[error("the handshake with the agent: {0}")]
    Handshake(FrameError),
    /// A request could not be read.
    #[error("reading a request: {0}")]
    Request(FrameError),
    /// Isolation runs on Unix systems only.
    #[error("isolated packs need a Unix system")]
    NotUnix,
}

impl ServeError {
    /// A failed setup step, named.
    pub(crate) fn setup(what: &'static str) -> impl FnOnce(io::Error) -> Self {
        move |error| Self::Setup { what, error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_is_one_whole_line() {
        let setup = ServeError::setup("dup stdin")(io::Error::from_raw_os_error(9));
        assert_eq!(
            setup.to_string(),
            "dup stdin: Bad file descriptor (os error 9)"
        );
        assert!(std::error::Error::source(&setup).is_none(), "said once");
        let protocol = ServeError::Protocol { agent: 3, ours: 4 };
        assert_eq!(
            protocol.to_string(),
            "the agent speaks isolation protocol 3, this process 4"
        );
    }
}
