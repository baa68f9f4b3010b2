//! The tool abstraction every session tool implements, and a call of one.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use xcsh_tool_types::{LogLevel, ToolError, ToolHints, ToolOutput};

use crate::cancel::CancellationToken;

/// A callback that receives partial results while a tool runs.
pub type ProgressFn = Arc<dyn Fn(&ToolOutput) + Send + Sync>;

/// A callback that receives the log lines a tool writes while it runs:
/// their level, the name of who wrote them (a pack's name) and the text.
pub type LogFn = Arc<dyn Fn(LogLevel, &str, &str) + Send + Sync>;

/// A tool the model can call.
///
/// Implementations must be cheap to query: the session asks for names,
/// schemas and visibility on every model request.
pub trait Tool: Send + Sync {
    /// The unique name the model calls the tool by.
    fn name(&self) -> &str;

    /// A short human-readable label.
    fn label(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// The JSON schema of the tool's arguments (an object schema).
    fn parameters(&self) -> &Value;

    /// What the tool says about its effects (default: nothing stated).
    fn hints(&self) -> ToolHints {
        ToolHints::default()
    }

    /// Hidden tools are not listed for the model unless [`offered`](Self::offered)
    /// says otherwise.
    fn hidden(&self) -> bool {
        false
    }

    /// Whether the tool is offered to the model right now. Defaults to
    /// "not hidden"; a hidden tool may offer itself while it is useful.
    fn offered(&self) -> bool {
        !self.hidden()
    }

    /// Whether the tool stops its own work at the session's time limit and
    /// answers with its own error (an isolated pack's tools kill their
    /// process, which a thread cannot be). The session then runs it on the
    /// caller's thread, without a timer of its own. Default: false.
    fn enforces_time_limit(&self) -> bool {
        false
    }

    /// Runs the tool. Arguments were already validated against
    /// [`parameters`](Self::parameters).
    ///
    /// # Errors
    ///
    /// A [`ToolError`] whose message the model sees as an error result.
    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError>;
}

impl fmt::Debug for dyn Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name())
            .field("label", &self.label())
            .finish_non_exhaustive()
    }
}

/// What a running tool call can see of its host: the call id, the working
/// directory, a progress sink, a log sink and a cancellation flag.
#[derive(Clone)]
pub struct ToolContext {
    call_id: String,
    cwd: PathBuf,
    progress: Option<ProgressFn>,
    log: Option<LogFn>,
    cancellation: CancellationToken,
}

impl ToolContext {
    /// A context for call `call_id` running in `cwd`.
    pub fn new(call_id: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Self {
            call_id: call_id.into(),
            cwd: cwd.into(),
            progress: None,
            log: None,
            cancellation: CancellationToken::new(),
        }
    }

    /// Forwards partial results to `progress` as they come.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Forwards the log lines the call writes to `log` as they come.
    pub fn with_log(mut self, log: LogFn) -> Self {
        self.log = Some(log);
        self
    }

    /// Uses `token` as the call's cancellation flag.
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// The id of the tool call.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The session's working directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Sends a partial result to whoever watches the call (no-op if nobody does).
    pub fn report_progress(&self, partial: &ToolOutput) {
        if let Some(progress) = &self.progress {
            progress(partial);
        }
    }

    /// Sends a log line `logger` wrote during the call to whoever watches
    /// the call's log (no-op if nobody does).
    pub fn log(&self, level: LogLevel, logger: &str, message: &str) {
        if let Some(log) = &self.log {
            log(level, logger, message);
        }
    }

    /// The call's cancellation flag.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// True once the host aborted the call.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("cwd", &self.cwd)
            .field("progress", &self.progress.is_some())
            .field("log", &self.log.is_some())
            .field("cancellation", &self.cancellation)
            .finish()
    }
}

/// One tool call from the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The JSON arguments.
    pub arguments: Value,
}

impl ToolCall {
    /// A call of `name` with `arguments`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[test]
    fn log_lines_reach_the_sink_with_level_logger_and_text() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let context = ToolContext::new("c1", "/").with_log(Arc::new(move |level, logger, text| {
            sink.lock()
                .unwrap()
                .push((level, logger.to_owned(), text.to_owned()));
        }));
        context.log(LogLevel::Warn, "pack-a", "careful");
        assert_eq!(
            *seen.lock().unwrap(),
            [(LogLevel::Warn, "pack-a".to_owned(), "careful".to_owned())]
        );
    }

    #[test]
    fn log_without_a_sink_is_a_no_op() {
        ToolContext::new("c1", "/").log(LogLevel::Error, "pack-a", "nobody listens");
    }
}
