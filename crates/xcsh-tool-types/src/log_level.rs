//! How much a log line matters.

use serde::{Deserialize, Serialize};

/// The level of a line a tool writes to the host's log, least to most
/// severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Very detailed.
    Trace,
    /// For developers.
    Debug,
    /// Normal operation.
    Info,
    /// Something looks wrong.
    Warn,
    /// Something failed.
    Error,
}
