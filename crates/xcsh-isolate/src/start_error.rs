//! Why a pack's process did not start, or did not open its pack: each
//! becomes the pack's one line in the load report (or in the error of the
//! call that tried to restart it), its cause after a `: `
//! ([`error_line`](xcsh_isolate_protocol::error_line)).

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use super::ending::Ending;

/// Why a pack's process did not start or did not open its pack.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The sealed library's descriptor could not be duplicated for the
    /// process.
    #[error("cannot hand its library over")]
    HandOver(#[source] io::Error),
    /// The descriptors handed over collide (a bug: each has its own
    /// number).
    #[error("cannot hand its library over")]
    MapDescriptors(#[source] command_fds::FdMappingCollision),
    /// The config requires namespaces (`require_sandbox = "full"`) and
    /// the pack would run without them.
    #[error(
        "refusing to run it without namespaces ({why}): the config sets require_sandbox = \"full\""
    )]
    NamespacesRequired {
        /// Why there are none: namespaces unusable, `namespaces = false`,
        /// or a pack granted everything.
        why: String,
    },
    /// The agent's own image could not be opened to hand it to
    /// bubblewrap (the comparison benchmark's engine).
    #[error("cannot open the xcsh executable to run it")]
    OpenImage(#[source] io::Error),
    /// The namespace plan could not be written down for the process.
    #[error("cannot write the namespace plan")]
    Plan(#[source] serde_json::Error),
    /// The agent's own image could not be found.
    #[cfg(not(target_os = "linux"))]
    #[error("cannot find the xcsh executable to run it")]
    FindImage(#[source] io::Error),
    /// A protected directory could not be made to keep it read-only in
    /// the sandbox.
    #[error("cannot keep {} from the pack", dir.display())]
    KeepProtected {
        /// The directory.
        dir: PathBuf,
        /// Why it could not be made.
        #[source]
        source: io::Error,
    },
    /// The process could not be started.
    #[error("cannot start its process")]
    Spawn(#[source] io::Error),
    /// The process started without its protocol pipes.
    #[error("its process has no pipes")]
    NoPipes,
    /// The reply pipe could not be made non-blocking or duplicated.
    #[error("cannot set up its reply pipe")]
    ReplyPipe(#[source] io::Error),
    /// The process did not open the pack within the limit and was
    /// stopped.
    #[error(
        "its process did not open the pack within {limit:?} (stopped){}",
        ending.stderr_suffix().replace('\n', " ")
    )]
    OpenTimedOut {
        /// The limit.
        limit: Duration,
        /// How it ended, with its last stderr lines.
        ending: Ending,
    },
    /// The process speaks another version of the protocol.
    #[error("its process speaks isolation protocol {theirs}, this xcsh {ours}")]
    Protocol {
        /// The process's version.
        theirs: u32,
        /// The agent's.
        ours: u32,
    },
    /// The process could not open the pack: its own one-line reason (the
    /// loader's cause, or its sandbox's).
    #[error("{0}")]
    OpenFailed(String),
    /// The process answered the open request with something else.
    #[error("its process answered out of turn")]
    OutOfTurn,
    /// The process ended while opening the pack.
    #[error(
        "its process {} while opening the pack{}",
        ending.how,
        ending.stderr_suffix().replace('\n', " ")
    )]
    EndedOpening {
        /// How it ended, with its last stderr lines.
        ending: Ending,
    },
    /// The process claims to be a pack its file is not named for.
    #[error(
        "its process says it is pack {claimed:?}, but its file {file} is not named for that pack"
    )]
    NotNamedForPack {
        /// The name it declared.
        claimed: String,
        /// The library's file name.
        file: String,
    },
    /// The thread that watches the process could not be started.
    #[error("cannot start a thread for its process")]
    Thread(#[source] io::Error),
}

#[cfg(test)]
mod tests {
    use xcsh_isolate_protocol::error_line;

    use super::*;

    #[test]
    fn each_line_names_the_step_then_its_cause_once() {
        let spawn = StartError::Spawn(io::Error::from_raw_os_error(2));
        assert_eq!(spawn.to_string(), "cannot start its process");
        assert_eq!(
            error_line(&spawn),
            "cannot start its process: No such file or directory (os error 2)"
        );
        let keep = StartError::KeepProtected {
            dir: "/home/u/.config/xcsh".into(),
            source: io::Error::from_raw_os_error(28),
        };
        assert_eq!(
            error_line(&keep),
            "cannot keep /home/u/.config/xcsh from the pack: No space left on device (os error 28)"
        );
        let ended = StartError::EndedOpening {
            ending: Ending {
                how: "was killed by signal SIGSEGV".to_owned(),
                stopped_by_host: None,
                stderr_tail: vec!["boom".to_owned()],
            },
        };
        assert_eq!(
            error_line(&ended),
            "its process was killed by signal SIGSEGV while opening the pack Its last lines on stderr:   boom"
        );
        let late = StartError::OpenTimedOut {
            limit: Duration::from_secs(1),
            ending: Ending {
                how: "was killed by signal SIGKILL".to_owned(),
                stopped_by_host: None,
                stderr_tail: Vec::new(),
            },
        };
        assert_eq!(
            error_line(&late),
            "its process did not open the pack within 1s (stopped)"
        );
        assert_eq!(
            StartError::Protocol { theirs: 5, ours: 6 }.to_string(),
            "its process speaks isolation protocol 5, this xcsh 6"
        );
        let required = StartError::NamespacesRequired {
            why: "the config sets namespaces = false".to_owned(),
        };
        assert_eq!(
            error_line(&required),
            "refusing to run it without namespaces (the config sets namespaces = false): the config sets require_sandbox = \"full\""
        );
        let collision = StartError::MapDescriptors(command_fds::FdMappingCollision);
        assert_eq!(
            error_line(&collision),
            "cannot hand its library over: Two or more mappings for the same child FD"
        );
    }
}
