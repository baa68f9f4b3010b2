//! How a pack's process ended, in words.

use std::fmt;
use std::process::ExitStatus;
use std::time::Duration;

/// How a pack's process ended, with the last lines it wrote to stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// `was killed by signal SIGSEGV`, `exited with status 3`, …
    pub how: String,
    /// Why xcsh stopped it, when it did (e.g. a time limit).
    pub stopped_by_host: Option<String>,
    /// The last lines on its stderr, oldest first.
    pub stderr_tail: Vec<String>,
}

impl Ending {
    /// The ending of a process that finished with `status`.
    pub fn from_status(status: ExitStatus) -> Self {
        Self {
            how: describe(status),
            stopped_by_host: None,
            stderr_tail: Vec::new(),
        }
    }

    /// The ending of a process run in namespaces of its own, whose first
    /// process (xcsh's, or bubblewrap's) exits with 128 + N when what it
    /// ran was killed by signal N.
    pub fn from_namespaces_status(status: ExitStatus) -> Self {
        #[cfg(unix)]
        if let Some(code) = status.code().filter(|code| (129..=192).contains(code)) {
            use std::os::unix::process::ExitStatusExt as _;
            return Self::from_status(ExitStatus::from_raw(code - 128));
        }
        Self::from_status(status)
    }

    /// `the process of pack {pack} {how}`, e.g.
    /// `the process of pack crashy was killed by signal SIGSEGV`.
    pub fn sentence(&self, pack: &str) -> String {
        match &self.stopped_by_host {
            Some(why) => format!("the process of pack {pack} was stopped by xcsh ({why})"),
            None => format!("the process of pack {pack} {}", self.how),
        }
    }

    /// The stderr lines, as lines to append to a message (empty if none).
    pub fn stderr_suffix(&self) -> String {
        if self.stderr_tail.is_empty() {
            return String::new();
        }
        let mut text = String::from("\nIts last lines on stderr:");
        for line in &self.stderr_tail {
            text.push_str("\n  ");
            text.push_str(line);
        }
        text
    }
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.how)
    }
}

/// `exited with status 3`, `was killed by signal SIGSEGV`.
pub fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return match nix::sys::signal::Signal::try_from(signal) {
                Ok(name) => format!("was killed by signal {}", name.as_str()),
                Err(_) => format!("was killed by signal {signal}"),
            };
        }
    }
    format!("ended ({status})")
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::process::ExitStatusExt as _;

    use super::*;

    #[test]
    fn signals_are_named_and_exit_codes_given() {
        assert_eq!(
            describe(ExitStatus::from_raw(11)),
            "was killed by signal SIGSEGV"
        );
        assert_eq!(
            describe(ExitStatus::from_raw(6)),
            "was killed by signal SIGABRT"
        );
        assert_eq!(
            describe(ExitStatus::from_raw(3 << 8)),
            "exited with status 3"
        );
        assert_eq!(
            Ending::from_namespaces_status(ExitStatus::from_raw(139 << 8)).how,
            "was killed by signal SIGSEGV"
        );
        assert_eq!(
            Ending::from_namespaces_status(ExitStatus::from_raw(3 << 8)).how,
            "exited with status 3"
        );
    }

    #[test]
    fn a_sentence_names_the_pack_and_any_stderr_lines() {
        let mut ending = Ending::from_status(ExitStatus::from_raw(6));
        assert_eq!(
            ending.sentence("crashy"),
            "the process of pack crashy was killed by signal SIGABRT"
        );
        assert_eq!(ending.stderr_suffix(), "");
        ending.stderr_tail = vec!["memory allocation of 64 bytes failed".into()];
        assert_eq!(
            ending.stderr_suffix(),
            "\nIts last lines on stderr:\n  memory allocation of 64 bytes failed"
        );
        ending.stopped_by_host = Some("Tool x timed out after 1s".into());
        assert_eq!(
            ending.sentence("crashy"),
            "the process of pack crashy was stopped by xcsh (Tool x timed out after 1s)"
        );
    }
}

/// Why a request to a pack's process got no reply.
#[derive(Debug)]
pub enum Failure {
    /// The process had ended before the request was sent.
    EndedBefore(Ending),
    /// The process ended while the request ran.
    Ended(Ending),
    /// The request ran past its limit; the process was killed.
    TimedOut(Duration),
}
