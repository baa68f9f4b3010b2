//! What one call may take: time, and the size of its result.

use std::time::Duration;

/// The result cap of a session unless configured otherwise: 1 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 1024 * 1024;

/// Bounds on every call of a session: tool calls (built-in and pack) and
/// the `apply` and `reject` code `resolve` runs.
///
/// ```
/// use std::time::Duration;
/// use xcsh_core::{CallLimits, Session};
///
/// let limits = CallLimits {
///     time: Some(Duration::from_secs(300)),
///     ..CallLimits::default()
/// };
/// let session = Session::new(std::env::temp_dir()).with_limits(limits);
/// assert_eq!(session.limits().time, Some(Duration::from_secs(300)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallLimits {
    /// How long a call may run before the session stops waiting for it
    /// (`None`: no limit, and calls run on the caller's thread).
    pub time: Option<Duration>,
    /// The most bytes of one result (text, image data and details)
    /// passed on; a larger result is cut and says so (`None`: no cap).
    pub result_bytes: Option<usize>,
}

impl Default for CallLimits {
    /// No time limit; results capped at [`DEFAULT_MAX_RESULT_BYTES`].
    fn default() -> Self {
        Self {
            time: None,
            result_bytes: Some(DEFAULT_MAX_RESULT_BYTES),
        }
    }
}
