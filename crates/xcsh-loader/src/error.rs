//! Why a tool pack failed to load.

use std::fmt::Display;
use std::path::PathBuf;

use abi_stable::library::{LibraryError, RootModuleError};

/// One way loading a pack can fail. `Display` is one line; the full detail
/// of layout mismatches goes to the debug log.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// The file does not exist or cannot be read.
    #[error("cannot read file: {0}")]
    Unreadable(String),
    /// The file, or its directory, can be written by other users.
    #[error("refusing a pack writable by other users: {} (fix: chmod o-w {})", path.display(), path.display())]
    Untrusted {
        /// The file or directory others can write.
        path: PathBuf,
    },
    /// The file, or a directory above it, can be written by its group.
    #[error("refusing a pack writable by its group: {} (fix: chmod g-w {})", path.display(), path.display())]
    GroupWritable {
        /// The file or directory its group can write.
        path: PathBuf,
    },
    /// The file, or a directory above it, belongs to neither root nor the
    /// user running the agent.
    #[error("refusing a pack whose path is owned by another user (uid {uid}): {} (fix: copy the pack into a directory you own)", path.display())]
    ForeignOwner {
        /// The file or directory.
        path: PathBuf,
        /// Its owner's user id.
        uid: u32,
    },
    /// The path names a directory, a device, a FIFO or a socket.
    #[error("not a regular file")]
    NotAFile,
    /// The file at the path is no longer the one that was checked (only
    /// where the checked file cannot be loaded through its descriptor).
    #[error("the file was replaced while it was being loaded: {}", path.display())]
    Replaced {
        /// The pack's canonical path.
        path: PathBuf,
    },
    /// An allow-list is configured and the pack is not on it.
    #[error("not in the allow-list")]
    NotAllowed,
    /// A project's own allow-list (which can only narrow the user's) does
    /// not list the pack.
    #[error("not in the project's allow-list ({})", config.display())]
    NotAllowedByProject {
        /// The project config holding the list.
        config: PathBuf,
    },
    /// The pack's SHA-256 differs from its entry in a project's allow-list.
    #[error("SHA-256 {actual} does not match the project's allow-list ({}) (expected {expected})", config.display())]
    ProjectHashMismatch {
        /// The project config holding the list.
        config: PathBuf,
        /// The hash in the list.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// A pack of a trusted project changed since `xcsh trust` recorded it.
    #[error("changed since the project was trusted (SHA-256 {actual}, trusted {expected}); to load it, run: xcsh trust {}", project.display())]
    ChangedSinceTrusted {
        /// The trusted project directory.
        project: PathBuf,
        /// The recorded hash.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// An installed pack's file is not the one `xcsh pack add` pinned.
    #[error("changed since it was added (SHA-256 {actual}, added {expected}); to use it, run: xcsh pack add {}", path.display())]
    ChangedSinceAdded {
        /// The pack's canonical path.
        path: PathBuf,
        /// The hash pinned by `xcsh pack add`.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// The pack's SHA-256 differs from its allow-list entry.
    #[error("SHA-256 {actual} does not match the allow-list (expected {expected})")]
    HashMismatch {
        /// The hash in the allow-list.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// The file is not a shared library this host's loader reads.
    #[error("not a shared library: {0}")]
    NotALibrary(String),
    /// A library file whose headers are damaged or cut short.
    #[error("corrupt or truncated library: {0}")]
    Corrupt(String),
    /// A library for another architecture.
    #[error("built for {found}, this host is {host}")]
    WrongArchitecture {
        /// The library's architecture.
        found: String,
        /// This host's architecture.
        host: String,
    },
    /// The file ends before the segments its headers describe.
    #[error("truncated library: {size} bytes, its headers need {needed}")]
    Truncated {
        /// The file's size.
        size: u64,
        /// The size its segments need.
        needed: u64,
    },
    /// The OS loader refused the file (not a library, another architecture,
    /// missing dependencies).
    #[error("cannot open library: {0}")]
    Open(String),
    /// A library, but it exports no xcsh root module.
    #[error("not an xcsh tool pack: no root module (symbol {symbol})")]
    MissingRootModule {
        /// The symbol looked for.
        symbol: String,
    },
    /// The pack declares an ABI version this host does not load.
    #[error(
        "incompatible API version: pack declares ABI {declared}, this host loads ABI {supported}"
    )]
    IncompatibleVersion {
        /// What the pack declares.
        declared: String,
        /// What the host loads, e.g. `1.x`.
        supported: String,
    },
    /// The pack's type layouts differ from this host's for its ABI version.
    #[error("ABI mismatch: {0}")]
    AbiMismatch(String),
    /// abi_stable refused the library's header or root module otherwise.
    #[error("invalid library header: {0}")]
    InvalidHeader(String),
    /// The root-module constructor failed or panicked.
    #[error("root module failed to initialise: {0}")]
    RootModule(String),
    /// The factory returned an error.
    #[error("factory returned an error: {0}")]
    Factory(String),
    /// The factory panicked (caught in the pack).
    #[error("factory panicked: {0}")]
    FactoryPanicked(String),
    /// The factory returned no tools.
    #[error("factory returned no tools")]
    NoTools,
    /// The user's configuration table for the pack does not match the
    /// schema the pack declares (one line naming the key).
    #[error("{0}")]
    Config(String),
    /// A tool failed its checks (accessor error or panic, bad name, bad
    /// schema).
    #[error("tool #{index}: {reason}")]
    InvalidTool {
        /// Position of the tool in the factory's list (from 1).
        index: usize,
        /// What is wrong, e.g. `label() panicked: boom`.
        reason: String,
    },
    /// The pack runs isolated, and its own process could not start, refused
    /// it (the loader's one-line cause, checked there) or ended opening it.
    #[error("{0}")]
    Isolated(String),
    /// Opened first in a child process (a library not seen before), the
    /// library killed that process or did not finish, e.g. `its load-time
    /// code killed the process (SIGABRT)`.
    #[error("{0}")]
    FirstSeen(String),
}

/// Longest cause kept in a one-line error.
const MAX_CAUSE: usize = 240;

/// `text` on one line, at most [`MAX_CAUSE`] characters.
pub(crate) fn one_line(text: impl Display) -> String {
    let text = text.to_string();
    let mut line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > MAX_CAUSE {
        line = line.chars().take(MAX_CAUSE - 1).collect::<String>() + "…";
    }
    line
}

/// The `Error:` lines at the end of an abi_stable layout report, which
/// say what differs; the surrounding kilobytes of layout dump do not.
fn summarise_layout_error(report: &str) -> String {
    let errors: Vec<&str> = report
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("Error:"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if errors.is_empty() {
        one_line(report)
    } else {
        one_line(errors.join("; "))
    }
}

impl LoadError {
    /// Maps abi_stable's error for the library at `path` to one line.
    pub(crate) fn from_library(error: LibraryError) -> Self {
        tracing::debug!(%error, "abi_stable refused a library");
        match error {
            LibraryError::OpenError { err, .. } => Self::Open(one_line(err)),
            LibraryError::GetSymbolError { symbol, .. } => Self::MissingRootModule {
                symbol: String::from_utf8_lossy(&symbol)
                    .trim_end_matches('\0')
                    .to_owned(),
            },
            LibraryError::IncompatibleVersionNumber { actual_version, .. } => {
                Self::IncompatibleVersion {
                    declared: actual_version.to_string(),
                    supported: supported_versions(),
                }
            }
            LibraryError::ParseVersionError(e) => Self::InvalidHeader(one_line(e)),
            LibraryError::RootModule { err, .. } => Self::RootModule(match err {
                RootModuleError::Returned(e) => one_line(e),
                RootModuleError::Unwound => "constructor panicked".to_owned(),
            }),
            LibraryError::AbiInstability(report) => {
                Self::AbiMismatch(summarise_layout_error(&report.to_string()))
            }
            LibraryError::InvalidAbiHeader(header) => Self::InvalidHeader(one_line(format!(
                "abi_stable header {header:?} is not compatible with this host's"
            ))),
            LibraryError::InvalidCAbi { expected, found } => Self::InvalidHeader(one_line(
                format!("C ABI mismatch: expected {expected}, found {found}"),
            )),
            LibraryError::Many(errors) => errors
                .into_iter()
                .next()
                .map(Self::from_library)
                .unwrap_or_else(|| Self::InvalidHeader("unknown error".to_owned())),
        }
    }
}

/// The ABI versions this host loads, e.g. `1.x`.
pub(crate) fn supported_versions() -> String {
    xcsh_plugin_api::abi::SUPPORTED_ABI_MAJORS
        .iter()
        .map(|m| format!("{m}.x"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_reports_shrink_to_their_error_lines() {
        let report = format!(
            "\nCompared <this>:\n{}\nError:prefix-types have a different prefix\n  Expected: 1 Found: 2\nError:unexpected field\n",
            "--- Type Layout ---\n".repeat(200)
        );
        assert_eq!(
            summarise_layout_error(&report),
            "prefix-types have a different prefix; unexpected field"
        );
    }

    #[test]
    fn one_line_folds_and_truncates() {
        assert_eq!(one_line("a\n\tb  c\n"), "a b c");
        let long = one_line("x".repeat(1000));
        assert_eq!(long.chars().count(), MAX_CAUSE);
        assert!(long.ends_with('…'));
    }
}
