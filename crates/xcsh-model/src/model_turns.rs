//! The model loop as a [`Turns`] value: [`xcsh_core::drive`] asks it for
//! each call and hands it each result, on the session's thread.
//!
//! `next_call` gives the calls of the model's last reply one by one; when
//! none are left it checks the reply against the ladder, then the bounds,
//! then asks the model again. `take_result` reports the call and adds its
//! result to the conversation.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use xcsh_core::{
    CancellationToken, ProviderCapabilities, RESOLVE_TOOL_NAME, Session, ToolCall, ToolChoice,
    ToolContext, ToolResult, Turns,
};

use crate::event::{EndReason, Event};
use crate::ladder::{Ladder, Rung};
use crate::{Bounds, Conversation, Message, ModelError, Observer, Provider, Request, ToolSpec};

/// The reminder sent again when the ladder reaches [`Rung::Auto`].
pub const RESOLVE_REMINDER: &str = xcsh_core::PREVIEW_REMINDER;

/// One run of the loop, with everything it owns while it runs.
pub(crate) struct ModelTurns<O> {
    provider: Arc<dyn Provider>,
    capabilities: ProviderCapabilities,
    bounds: Bounds,
    cancel: CancellationToken,
    ladder: Ladder,
    conversation: Conversation,
    observer: O,
    started: Instant,
    turns: u32,
    tokens: u64,
    /// The action whose reminder was last sent again.
    reminded: Option<u64>,
    /// The last reply's calls not yet run, in order.
    queue: VecDeque<ToolCall>,
    /// The call running now.
    running: Option<ToolCall>,
    /// How the last reply was asked for, checked once its calls ran.
    answered: Option<Answered>,
    /// Why the loop ended, once it has.
    ended: Option<EndReason>,
}

/// How a reply was asked for.
struct Answered {
    /// The action on top of the store when it was asked.
    top: Option<u64>,
    /// The ladder's rung for that action.
    rung: Option<Rung>,
    /// Whether the reply called `resolve`.
    resolved: bool,
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
            started: Instant::now(),
            turns: 0,
            tokens: 0,
            reminded: None,
            queue: VecDeque::new(),
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
            if let Some(answered) = self.answered.take() {
                self.check_reply(session, &answered)?;
            }
            if let Some(reason) = self.bound_reached() {
                return Err(reason);
            }
            self.ask(session)?;
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

    /// Sends one request and queues the reply's calls; a choice the
    /// provider refused steps the ladder down and queues nothing.
    fn ask(&mut self, session: &Session) -> Result<(), EndReason> {
        for message in session.take_messages() {
            self.conversation.push(Message::User(message.text));
        }
        let top = session.store().peek().map(|entry| entry.id());
        let rung = top.map(|id| self.ladder.rung(id));
        let mut tools: Vec<ToolSpec> = session
            .offered_tools()
            .iter()
            .map(|tool| ToolSpec::of(tool.as_ref()))
            .collect();
        let choice = match rung {
            Some(Rung::Named) => ToolChoice::Tool {
                name: RESOLVE_TOOL_NAME.to_owned(),
            },
            Some(Rung::Required) => {
                tools.retain(|tool| tool.name == RESOLVE_TOOL_NAME);
                ToolChoice::Required
            }
            Some(Rung::Auto) => {
                if self.reminded != top {
                    self.conversation
                        .push(Message::User(RESOLVE_REMINDER.to_owned()));
                    self.reminded = top;
                }
                ToolChoice::Auto
            }
            None => session.tool_choice(self.capabilities),
        };
        self.turns += 1;
        self.observer.observe(Event::Request {
            turn: self.turns,
            tool_choice: &choice,
            tools: tools.len(),
        });
        let remaining = self.bounds.tokens.saturating_sub(self.tokens);
        let request = Request {
            conversation: &self.conversation,
            tools: &tools,
            choice: &choice,
            max_tokens: self
                .bounds
                .answer_tokens
                .min(u32::try_from(remaining).unwrap_or(u32::MAX))
                .max(1),
        };
        let reply = match self.provider.complete(&request, &self.cancel) {
            Ok(reply) => reply,
            Err(ModelError::Interrupted) => return Err(EndReason::Interrupted),
            Err(ModelError::Status { status, message })
                if refuses_choice(status) && rung.is_some_and(|rung| rung < Rung::Auto) =>
            {
                let (top, rung) = (top.unwrap_or_default(), rung.unwrap_or(Rung::Auto));
                let step = self
                    .ladder
                    .refused(top, rung, status, message)
                    .expect("a rung above auto has one below");
                tracing::warn!("{step}");
                self.observer.observe(Event::Ladder { step: &step });
                return Ok(());
            }
            Err(error) => {
                return Err(EndReason::Failed {
                    message: one_line(&error),
                });
            }
        };
        if self.cancel.is_cancelled() {
            // Interrupted while the request was out: the answer's calls
            // never run.
            return Err(EndReason::Interrupted);
        }
        // The request is answered: a queued override is used up.
        session.next_tool_choice(self.capabilities);
        self.tokens += reply.usage.total();
        if !reply.text.is_empty() {
            self.observer.observe(Event::Text {
                text: &reply.text,
                usage: reply.usage,
            });
        }
        let resolved = reply
            .calls
            .iter()
            .any(|call| call.name == RESOLVE_TOOL_NAME);
        self.queue.extend(reply.calls.iter().cloned());
        self.conversation.push(Message::Assistant {
            text: reply.text,
            calls: reply.calls,
        });
        self.answered = Some(Answered {
            top,
            rung,
            resolved,
        });
        Ok(())
    }

    /// The bound the loop has reached, if any.
    fn bound_reached(&self) -> Option<EndReason> {
        if self.cancel.is_cancelled() {
            return Some(EndReason::Interrupted);
        }
        if let Some(limit) = self.bounds.time
            && self.started.elapsed() >= limit
        {
            return Some(EndReason::Time { limit });
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

/// Whether an HTTP error to a forced choice is the provider refusing the
/// choice: a bad request (400, 422) or a server that fails on it (500, as
/// llama-cpp-python does for `required`). Authentication, missing
/// endpoints, rate limits and gateways say nothing about the choice.
fn refuses_choice(status: u16) -> bool {
    matches!(status, 400 | 422 | 500)
}

/// The error and its causes on one line.
fn one_line(error: &ModelError) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
