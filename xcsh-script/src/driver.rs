//! Running requests in a borrowed session, one at a time.

use serde_json::Value;
use xcsh_core::Session;

use crate::request::Request;
use crate::step::Step;
use crate::steps::{ShowProgress, Steps};

/// Runs calls in a session and reports each as a [`Step`].
pub struct Driver<'a> {
    session: &'a Session,
    steps: Steps,
}

impl std::fmt::Debug for Driver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Driver")
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl<'a> Driver<'a> {
    /// A driver over `session` for a provider that can force a named tool.
    pub fn new(session: &'a Session) -> Self {
        Self {
            session,
            steps: Steps::new(),
        }
    }

    /// Shows each partial result a tool reports (`report_progress`)
    /// through `show` while the call runs.
    pub fn showing_progress(mut self, show: ShowProgress) -> Self {
        self.steps = self.steps.showing_progress(show);
        self
    }

    /// Runs `request`, entry number `line`.
    pub fn call(&self, line: usize, request: Request) -> Step {
        let (started, call, context) = self.steps.start(self.session, line, request);
        let result = self.session.execute_owned(call, context);
        self.steps.finish(self.session, started, result)
    }

    /// Reports a line that was not a tool call; nothing runs.
    pub fn reject(&self, line: usize, id: Option<Value>, message: String) -> Step {
        self.steps.reject(self.session, line, id, message)
    }
}
