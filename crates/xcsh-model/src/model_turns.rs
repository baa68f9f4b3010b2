//! The model loop as a [`Turns`] value: [`xcsh_core::drive`] asks it for
//! each call and hands it each result, on the session's thread.
//!
//! `next_call` gives the calls of the model's last reply one by one (at
//! most [`Bounds::calls_per_answer`]; the others are refused back to the
//! model); when none are left it checks the reply against the ladder, then
//! the bounds, then asks the model again ([`crate::asking`]).
//! `take_result` reports the call and adds its result to the conversation.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use xcsh_core::{
    CancellationToken, ProviderCapabilities, Session, ToolCall, ToolChoice, ToolContext,
    ToolResult, Turns,
};

use crate::event::{EndReason, Event};
use crate::ladder::{Ladder, Rung};
use crate::{Bounds, Conversation, Message, Observer, Provider};

/// The reminder sent again when the ladder reaches [`Rung::Auto`].
pub const RESOLVE_REMINDER: &str = xcsh_core::PREVIEW_REMINDER;

/// One run of the loop, with everything it owns while it runs.
pub(crate) struct ModelTurns<O> {
    pub(crate) provider: Arc<dyn Provider>,
    pub(crate) capabilities: ProviderCapabilities,
    pub(crate) bounds: Bounds,
    pub(crate) cancel: CancellationToken,
    pub(crate) ladder: Ladder,
    pub(crate) conversation: Conversation,
    pub(crate) observer: O,
    /// When the time limit passes.
    pub(crate) deadline: Option<Instant>,
    pub(crate) turns: u32,
    pub(crate) tokens: u64,
    /// The action whose reminder was last sent again.
    pub(crate) reminded: Option<u64>,
    /// The tool choice of the last request sent with nothing pending: the
    /// choice [`Rung::Unforced`] leaves as it was.
    pub(crate) unsteered: ToolChoice,
    /// The last reply's calls not yet run, in order.
    pub(crate) queue: VecDeque<ToolCall>,
    /// The last reply's calls past [`Bounds::calls_per_answer`]: refused
    /// back to the model once the others ran.
    pub(crate) not_run: Vec<ToolCall>,
    /// The call running now.
    running: Option<ToolCall>,
    /// How the last reply was asked for, checked once its calls ran.
    pub(crate) answered: Option<Answered>,
    /// Why the loop ended, once it has.
    ended: Option<EndReason>,
}

/// How a reply was asked for.
pub(crate) struct Answered {
    /// The action on top of the store when it was asked.
    pub(crate) top: Option<u64>,
    /// The ladder's rung for that action.
    pub(crate) rung: Option<Rung>,
    /// Whether the reply called `resolve` (in a call that runs).
    pub(crate) resolved: bool,
}

/// What a run leaves: why it ended, what it used, and what it owned.
pub(crate) struct Ended<O> {
    pub(crate) reason: EndReason,
    pub(crate) turns: u32,
    pub(crate) tokens: u64,
    pub(crate) ladder: Ladder,
    pub(crate) conversation: Conversation,
    pub(crate) observer: O,
}

impl<O: Observer> ModelTurns<O> {
    /// A run asking `provider` from `conversation` on, within `bounds`,
    /// reporting to `observer`; its clock starts now.
    pub(crate) fn new(
        provider: Arc<dyn Provider>,
        capabilities: ProviderCapabilities,
        bounds: Bounds,
        cancel: CancellationToken,
        ladder: Ladder,
        conversation: Conversation,
        observer: O,
    ) -> Self {
        Self {
            provider,
            capabilities,
            bounds,
            cancel,
            ladder,
            conversation,
            observer,
            deadline: bounds
                .time
                .and_then(|time| Instant::now().checked_add(time)),
            turns: 0,
            tokens: 0,
            reminded: None,
            unsteered: ToolChoice::Auto,
            queue: VecDeque::new(),
            not_run: Vec::new(),
            running: None,
            answered: None,
            ended: None,
        }
    }

    /// What the run leaves once the drive is over.
    pub(crate) fn end(self) -> Ended<O> {
        Ended {
            reason: self
                .ended
                .expect("a drive ends when next_call gives none, which it does with a reason"),
            turns: self.turns,
            tokens: self.tokens,
            ladder: self.ladder,
            conversation: self.conversation,
            observer: self.observer,
        }
    }

    /// The next call, asking the model as often as it takes; `Err` with
    /// the reason once the loop ends.
    fn next(&mut self, session: &Session) -> Result<ToolCall, EndReason> {
        loop {
            if let Some(call) = self.queue.pop_front() {
                return Ok(call);
            }
            self.refuse_not_run();
            if let Some(answered) = self.answered.take() {
                self.check_reply(session, &answered)?;
            }
            if let Some(reason) = self.bound_reached() {
                return Err(reason);
            }
            self.ask(session)?;
        }
    }

    /// Answers each call past the per-answer limit with an error result
    /// the model reads, after the calls that ran.
    fn refuse_not_run(&mut self) {
        let made = self.not_run.len() + self.bounds.calls_per_answer as usize;
        for call in std::mem::take(&mut self.not_run) {
            let message = format!(
                "Not run: the answer made {made} tool calls and xcsh runs at most {} of one answer (--max-calls-per-answer). Call {} again in a later answer if it is still needed.",
                self.bounds.calls_per_answer, call.name
            );
            self.observer.observe(Event::NotRun {
                call: &call,
                message: &message,
            });
            self.conversation.push(Message::ToolResult {
                call_id: call.id,
                name: call.name,
                text: message,
                is_error: true,
            });
        }
    }

    /// After a reply's calls ran: a reply that ignored the ladder's rung
    /// steps it down (or ends the loop when none is left), a reply with
    /// nothing called and nothing pending finishes it.
    fn check_reply(&mut self, session: &Session, answered: &Answered) -> Result<(), EndReason> {
        if let (Some(top), Some(rung), false) = (answered.top, answered.rung, answered.resolved) {
            let Some(step) = self.ladder.ignored(top, rung) else {
                let label = session
                    .store()
                    .get(top)
                    .map(|entry| entry.action().label().to_owned())
                    .unwrap_or_default();
                return Err(EndReason::NeverResolved { label });
            };
            tracing::warn!("{step}");
            self.observer.observe(Event::Ladder { step: &step });
            return Ok(());
        }
        let called = matches!(
            self.conversation.messages.last(),
            Some(Message::ToolResult { .. })
        );
        if !called && !session.store().has_pending() {
            return Err(EndReason::Finished);
        }
        Ok(())
    }

    /// The bound the loop has reached, if any.
    pub(crate) fn bound_reached(&self) -> Option<EndReason> {
        if self.cancel.is_cancelled() {
            return Some(EndReason::Interrupted);
        }
        if let Some(reason) = self.time_is_up() {
            return Some(reason);
        }
        if self.tokens >= self.bounds.tokens {
            return Some(EndReason::Tokens {
                used: self.tokens,
                limit: self.bounds.tokens,
            });
        }
        (self.turns >= self.bounds.turns).then_some(EndReason::Turns {
            limit: self.bounds.turns,
        })
    }

    /// [`EndReason::Time`] once the deadline has passed.
    pub(crate) fn time_is_up(&self) -> Option<EndReason> {
        let (Some(deadline), Some(limit)) = (self.deadline, self.bounds.time) else {
            return None;
        };
        (Instant::now() >= deadline).then_some(EndReason::Time { limit })
    }
}

impl<O: Observer> Turns for ModelTurns<O> {
    fn next_call(&mut self, session: &Session) -> Option<(ToolCall, ToolContext)> {
        if self.ended.is_some() {
            return None;
        }
        match self.next(session) {
            Ok(call) => {
                let context = ToolContext::new(call.id.clone(), session.cwd().to_path_buf())
                    .with_cancellation(self.cancel.child());
                self.running = Some(call.clone());
                Some((call, context))
            }
            Err(reason) => {
                self.ended = Some(reason);
                None
            }
        }
    }

    fn take_result(&mut self, _session: &Session, result: ToolResult) {
        let Some(call) = self.running.take() else {
            return;
        };
        self.observer.observe(Event::Call {
            call: &call,
            result: &result,
        });
        self.conversation.push(Message::ToolResult {
            call_id: call.id,
            name: call.name,
            text: result.text(),
            is_error: result.is_error,
        });
    }
}
