//! What a tool sees of the host during one call.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::abi::v1::{ExecuteContextRef, FfiToolOutput};

use super::{Host, PendingAction, ToolError, ToolOutput};

/// The per-call half of the host: progress and cancellation.
pub(crate) trait CallHooks {
    fn report_progress(&self, partial: FfiToolOutput);
    fn is_cancelled(&self) -> bool;
}

impl CallHooks for ExecuteContextRef<'_> {
    fn report_progress(&self, partial: FfiToolOutput) {
        Self::report_progress(self, partial);
    }

    fn is_cancelled(&self) -> bool {
        Self::is_cancelled(self)
    }
}

/// One running call: its id, the working directory, progress, cancellation,
/// and the [`Host`].
pub struct ToolContext<'a> {
    pub(crate) call_id: &'a str,
    pub(crate) cwd: PathBuf,
    pub(crate) call: &'a (dyn CallHooks + 'a),
    pub(crate) host: &'a Host,
}

impl ToolContext<'_> {
    /// The id of this tool call.
    pub fn call_id(&self) -> &str {
        self.call_id
    }

    /// The session's working directory, byte for byte (on Unix a name
    /// that is not UTF-8 too), as [`Host::cwd`].
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// `path` joined to the working directory, as it is: `..`, absolute
    /// paths and links are not checked. Use
    /// [`confined_path`](Self::confined_path) for a path the model gave.
    pub fn resolve_path(&self, path: impl AsRef<Path>) -> PathBuf {
        self.cwd.join(path)
    }

    /// `path` (as the model gave it: relative to the working directory, or
    /// absolute) resolved the way the agent's own tools resolve paths:
    /// `.` and `..` applied and every symbolic link followed, dangling
    /// ones too. A path that leads outside the working directory is
    /// refused with the agent's own message, unless the user started xcsh
    /// with `--allow-outside-root`. The path need not exist. A path that
    /// names nothing as written but holds `\xNN` escapes of bytes 0x80 and
    /// above (a name as xcsh and [`fs::name::shown`](crate::fs::name::shown)
    /// print it) is taken as the name with those bytes.
    ///
    /// # Errors
    ///
    /// `path {path} is outside the working directory: it resolves to
    /// {where} (start xcsh with --allow-outside-root to allow this)`, or
    /// `cannot resolve path {path}: {why}` when a link cannot be read.
    pub fn confined_path(&self, path: impl AsRef<Path>) -> Result<PathBuf, ToolError> {
        xcsh_safe_fs::confine(&self.cwd, path, self.host.outside_root_allowed())
            .map_err(|error| ToolError::new(error.to_string()))
    }

    /// Sends a partial result to the host now.
    pub fn report_progress(&self, partial: ToolOutput) {
        self.call.report_progress(partial.into());
    }

    /// True once the host aborted this call: stop early.
    pub fn is_cancelled(&self) -> bool {
        self.call.is_cancelled()
    }

    /// The host's API.
    pub fn host(&self) -> &Host {
        self.host
    }

    /// Shorthand for [`Host::push_pending_action`].
    ///
    /// # Errors
    ///
    /// As [`Host::push_pending_action`].
    pub fn push_pending_action(&self, action: PendingAction) -> Result<(), ToolError> {
        self.host.push_pending_action(action)
    }
}

impl fmt::Debug for ToolContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}
