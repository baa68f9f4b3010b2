//! The loop: ask the model, run its tool calls in the session, send the
//! results back, until the model is done or a bound is reached.

use std::sync::Arc;

use xcsh_core::{CancellationToken, ProviderCapabilities, Session};

use crate::event::Outcome;
use crate::ladder::{FirstSteer, Ladder, Rung};
use crate::model_turns::ModelTurns;
use crate::{Bounds, Conversation, Observer, Provider};

/// A model loop over one session.
///
/// The loop runs on the session's thread through [`xcsh_core::drive`],
/// as `xcsh run` and `xcsh repl` do: each tool call runs on the thread
/// that asked the model, under the session's time limit, with no thread
/// hand-off; a call past the limit is abandoned at the limit and the loop
/// goes on with its timeout result.
#[derive(Debug)]
pub struct ModelLoop {
    session: Arc<Session>,
    provider: Arc<dyn Provider>,
    capabilities: ProviderCapabilities,
    bounds: Bounds,
    cancel: CancellationToken,
    ladder: Ladder,
}

impl std::fmt::Debug for dyn Provider + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider")
            .field("api", &self.api())
            .finish()
    }
}

impl ModelLoop {
    /// A loop over `session` talking to `provider`. Without
    /// `capabilities.named_tool_choice` the ladder starts at
    /// [`Rung::Required`].
    pub fn new(
        session: Arc<Session>,
        provider: Arc<dyn Provider>,
        capabilities: ProviderCapabilities,
        bounds: Bounds,
    ) -> Self {
        let start = if capabilities.named_tool_choice {
            Rung::Named
        } else {
            Rung::Required
        };
        Self {
            session,
            provider,
            capabilities,
            bounds,
            cancel: CancellationToken::new(),
            ladder: Ladder::new(start),
        }
    }

    /// This loop, each pending action's steering starting as `first`
    /// says (the default: [`FirstSteer::Force`]).
    pub fn first_steer(mut self, first: FirstSteer) -> Self {
        self.ladder = self.ladder.first_steer(first);
        self
    }

    /// The token that interrupts the loop (Ctrl-C): an open request ends
    /// at once (its connection is closed), a wait for a retry within a
    /// few milliseconds, and running tool calls see it cancelled; the
    /// loop ends at its next check.
    pub fn cancellation(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// The ladder, with what it remembers of the provider.
    pub fn ladder(&self) -> &Ladder {
        &self.ladder
    }

    /// Runs until the model is done or a bound is reached, reporting to
    /// `observer`, and gives the observer back. However it ends, what is
    /// still pending is discarded (never applied) through
    /// [`Session::end`]. `conversation` holds every message when it
    /// returns; the ladder keeps what it learnt for the next run.
    ///
    /// # Panics
    ///
    /// A panic in `observer` ends the loop and is resumed on this thread.
    pub fn run<O: Observer>(
        &mut self,
        conversation: &mut Conversation,
        observer: O,
    ) -> (Outcome, O) {
        let turns = ModelTurns::new(
            Arc::clone(&self.provider),
            self.capabilities,
            self.bounds,
            self.cancel.clone(),
            self.ladder.clone(),
            std::mem::take(conversation),
            observer,
        );
        let ended = xcsh_core::drive(&self.session, turns).end();
        self.ladder = ended.ladder;
        *conversation = ended.conversation;
        let discarded = self.session.end();
        let outcome = Outcome {
            message: ended.reason.to_string(),
            reason: ended.reason,
            turns: ended.turns,
            tokens: ended.tokens,
            discarded,
        };
        (outcome, ended.observer)
    }
}

#[cfg(test)]
mod tests;
