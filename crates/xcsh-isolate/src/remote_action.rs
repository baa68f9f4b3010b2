//! A pending action pushed by an isolated pack, as an ordinary action in
//! the session's store: its apply and reject run in the pack's process.

use std::sync::Arc;
use std::time::Duration;

use xcsh_core::pending::PendingActionError;
use xcsh_core::{PendingAction, ToolError, ToolOutput};
use xcsh_isolate_protocol::{Outcome, PushedAction, Request, convert};

use super::ending::Failure;

/// What an action needs of the process that holds it (the pack's process,
/// [`super::process::PackProcess`]): requests for its apply and reject, and
/// a way to let it free its side.
pub trait ActionHost: Send + Sync {
    /// The pack's name, for messages.
    fn pack(&self) -> &str;

    /// Sends the request `make` builds with a fresh id and waits for its
    /// reply; past `limit` the process is killed, naming `what` ran over.
    ///
    /// # Errors
    ///
    /// See [`Failure`].
    fn request(
        &self,
        make: &dyn Fn(u64) -> Request,
        limit: Option<Duration>,
        what: &str,
    ) -> Result<Outcome, Failure>;

    /// Tells the process to drop action `action` (no reply).
    fn forget(&self, action: u64);
}

/// Why a pushed action is not taken into the session's store (the pack's
/// process is told to drop it, and the agent logs why).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PushError {
    /// The action itself is not valid (a blank label).
    #[error(transparent)]
    Action(#[from] PendingActionError),
    /// Its details are not JSON.
    #[error(transparent)]
    Details(ToolError),
}

/// The child's action, bound to the process that holds it. Dropped with
/// the session's action (applied, or discarded without reject code), it
/// tells the process to free its side.
struct RemoteAction {
    process: Arc<dyn ActionHost>,
    action: u64,
    label: String,
    timeout: Option<Duration>,
}

impl Drop for RemoteAction {
    fn drop(&mut self) {
        self.process.forget(self.action);
    }
}

/// The session-side action for `pushed`.
///
/// # Errors
///
/// A blank label or details that are not JSON.
pub fn adapt(
    process: Arc<dyn ActionHost>,
    pushed: PushedAction,
    timeout: Option<Duration>,
) -> Result<PendingAction, PushError> {
    let remote = Arc::new(RemoteAction {
        process,
        action: pushed.action,
        label: pushed.label.clone(),
        timeout,
    });
    let applier = Arc::clone(&remote);
    let mut action = PendingAction::try_new(pushed.label, move |reason| applier.apply(reason))?
        .with_source_tool_name(pushed.source_tool_name);
    if let Some(details) = pushed.details_json {
        action =
            action.with_details(convert::details_from_wire(&details).map_err(PushError::Details)?);
    }
    if pushed.has_reject {
        action = action.with_reject(move |reason| remote.reject(reason));
    }
    Ok(action)
}

impl RemoteAction {
    fn apply(&self, reason: &str) -> Result<ToolOutput, ToolError> {
        let outcome = self.process.request(
            &|id| Request::Apply {
                id,
                action: self.action,
                reason: reason.to_owned(),
            },
            self.timeout,
            "apply",
        );
        let pack = self.process.pack();
        match outcome {
            Ok(Outcome::Output(output)) => convert::output_from_wire(output),
            Ok(Outcome::Nothing) => Ok(ToolOutput::default()),
            Ok(Outcome::Error {
                message,
                details_json,
            }) => Err(convert::error_from_wire(message, details_json)),
            Err(Failure::Ended(ending)) => Err(ToolError::new(format!(
                "{} during apply; {LOST}{}",
                ending.sentence(pack),
                ending.stderr_suffix()
            ))),
            Err(Failure::EndedBefore(ending)) => Err(ToolError::new(format!(
                "{} after this action was pushed; {LOST}",
                ending.sentence(pack)
            ))),
            Err(Failure::TimedOut(limit)) => Err(ToolError::new(format!(
                "apply timed out after {limit:?} and the process of pack {pack} was killed; {LOST}"
            ))),
        }
    }

    fn reject(&self, reason: &str) -> Result<Option<ToolOutput>, ToolError> {
        let outcome = self.process.request(
            &|id| Request::Reject {
                id,
                action: self.action,
                reason: reason.to_owned(),
            },
            self.timeout,
            "reject",
        );
        let pack = self.process.pack();
        match outcome {
            Ok(Outcome::Output(output)) => convert::output_from_wire(output).map(Some),
            Ok(Outcome::Nothing) => Ok(None),
            Ok(Outcome::Error {
                message,
                details_json,
            }) => Err(convert::error_from_wire(message, details_json)),
            // Nothing of the action is left to clean up in a process that
            // is gone: the discard stands, and says its reject did not run.
            Err(Failure::EndedBefore(ending)) => Ok(Some(ToolOutput::text(format!(
                "Discarded: {}. Reason: {reason}\nIts reject code did not run: {}.",
                self.label,
                ending.sentence(pack)
            )))),
            Err(Failure::Ended(ending)) => Err(ToolError::new(format!(
                "{} during reject{}",
                ending.sentence(pack),
                ending.stderr_suffix()
            ))),
            Err(Failure::TimedOut(limit)) => Err(ToolError::new(format!(
                "reject timed out after {limit:?} and the process of pack {pack} was killed"
            ))),
        }
    }
}

/// Why an action of an ended process stays but cannot be applied.
const LOST: &str = "the action stays pending but can no longer be applied: discard it";
