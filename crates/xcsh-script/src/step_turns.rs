//! A front end that reads requests and shows steps, as a
//! [`Turns`] for [`xcsh_core::drive`].

use xcsh_core::{Session, ToolCall, ToolContext, ToolResult, Turns};

use crate::request::Request;
use crate::step::Step;
use crate::steps::{Started, Steps};

/// Where requests come from and where their steps go: `xcsh run`'s lines
/// and standard output, the REPL's terminal.
pub trait StepFront: Send + 'static {
    /// Why the front end stopped early (input unreadable, output closed).
    type Error: Send + 'static;

    /// The next request and its entry number, `None` at the end of input.
    /// An entry that is not a call is answered here, with `steps`.
    ///
    /// # Errors
    ///
    /// The input cannot be read, or an answer cannot be shown: the drive
    /// ends with this error.
    fn next_request(
        &mut self,
        session: &Session,
        steps: &Steps,
    ) -> Result<Option<(usize, Request)>, Self::Error>;

    /// Shows the step of a call that ended.
    ///
    /// # Errors
    ///
    /// It cannot be shown: the drive ends with this error.
    fn show(&mut self, step: &Step) -> Result<(), Self::Error>;
}

/// A [`StepFront`] driven by [`xcsh_core::drive`]: each request becomes a
/// call, each result a step.
pub struct StepTurns<F: StepFront> {
    front: F,
    steps: Steps,
    /// The call running now.
    running: Option<Started>,
    failed: Option<F::Error>,
}

impl<F: StepFront> std::fmt::Debug for StepTurns<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepTurns")
            .field("steps", &self.steps)
            .field("running", &self.running)
            .field("failed", &self.failed.is_some())
            .finish_non_exhaustive()
    }
}

impl<F: StepFront> StepTurns<F> {
    /// `front`, making its calls and steps with `steps`.
    pub fn new(front: F, steps: Steps) -> Self {
        Self {
            front,
            steps,
            running: None,
            failed: None,
        }
    }

    /// The front end back, and the error that ended the drive early, if
    /// one did.
    pub fn into_parts(self) -> (F, Option<F::Error>) {
        (self.front, self.failed)
    }
}

impl<F: StepFront> Turns for StepTurns<F> {
    fn next_call(&mut self, session: &Session) -> Option<(ToolCall, ToolContext)> {
        if self.failed.is_some() {
            return None;
        }
        match self.front.next_request(session, &self.steps) {
            Ok(Some((entry, request))) => {
                let (started, call, context) = self.steps.start(session, entry, request);
                self.running = Some(started);
                Some((call, context))
            }
            Ok(None) => None,
            Err(error) => {
                self.failed = Some(error);
                None
            }
        }
    }

    fn take_result(&mut self, session: &Session, result: ToolResult) {
        let Some(started) = self.running.take() else {
            // `drive` gives a result only for a call `next_call` gave.
            return;
        };
        let step = self.steps.finish(session, started, result);
        if let Err(error) = self.front.show(&step) {
            self.failed = Some(error);
        }
    }
}
