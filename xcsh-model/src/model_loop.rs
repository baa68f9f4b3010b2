//! The loop: ask the model, run its tool calls in the session, send the
//! results back, until the model is done or a bound is reached.

use std::time::{Duration, Instant};

use xcsh_core::{
    CancellationToken, ProviderCapabilities, RESOLVE_TOOL_NAME, Session, ToolChoice, ToolContext,
};

use crate::event::{EndReason, Event, Outcome};
use crate::ladder::{Ladder, Rung};
use crate::{Conversation, Message, ModelError, Provider, Request, ToolSpec};

/// The reminder sent again when the ladder reaches [`Rung::Auto`].
pub const RESOLVE_REMINDER: &str = xcsh_core::PREVIEW_REMINDER;

/// How far one loop may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The most requests.
    pub turns: u32,
    /// The most tokens, input and output of every request added up.
    pub tokens: u64,
    /// The most tokens of one answer.
    pub answer_tokens: u32,
    /// The longest the loop may run (checked between requests and tool
    /// calls; a request's own timeout is the provider's setting).
    pub time: Option<Duration>,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            turns: 50,
            tokens: 1_000_000,
            answer_tokens: 4096,
            time: Some(Duration::from_secs(30 * 60)),
        }
    }
}

/// A model loop over one session.
#[derive(Debug)]
pub struct ModelLoop<'a> {
    session: &'a Session,
    provider: &'a dyn Provider,
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

impl<'a> ModelLoop<'a> {
    /// A loop over `session` talking to `provider`. Without
    /// `capabilities.named_tool_choice` the ladder starts at
    /// [`Rung::Required`].
    pub fn new(
        session: &'a Session,
        provider: &'a dyn Provider,
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

    /// The token that interrupts the loop (Ctrl-C): it ends at the next
    /// check, between requests, tool calls and stream chunks, and running
    /// tool calls see it cancelled.
    pub fn cancellation(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// The ladder, with what it remembers of the provider.
    pub fn ladder(&self) -> &Ladder {
        &self.ladder
    }

    /// Runs until the model is done or a bound is reached, reporting to
    /// `observe`. However it ends, what is still pending is discarded
    /// (never applied) through [`Session::end`].
    pub fn run(
        &mut self,
        conversation: &mut Conversation,
        observe: &mut dyn FnMut(Event<'_>),
    ) -> Outcome {
        let started = Instant::now();
        let mut turns = 0;
        let mut tokens = 0;
        let reason = self.drive(conversation, observe, started, &mut turns, &mut tokens);
        let discarded = self.session.end();
        Outcome {
            message: reason.to_string(),
            reason,
            turns,
            tokens,
            discarded,
        }
    }

    fn drive(
        &mut self,
        conversation: &mut Conversation,
        observe: &mut dyn FnMut(Event<'_>),
        started: Instant,
        turns: &mut u32,
        tokens: &mut u64,
    ) -> EndReason {
        // The rung whose reminder was last sent again, per action.
        let mut reminded: Option<u64> = None;
        loop {
            if let Some(reason) = self.bound_reached(started, *turns, *tokens) {
                return reason;
            }
            self.take_reminders(conversation);
            let top = self.session.store().peek().map(|entry| entry.id());
            let wanted = self.session.tool_choice(self.capabilities);
            let rung = top.map(|id| self.ladder.rung(id));
            let mut tools: Vec<ToolSpec> = self
                .session
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
                    if reminded != top {
                        conversation.push(Message::User(RESOLVE_REMINDER.to_owned()));
                        reminded = top;
                    }
                    ToolChoice::Auto
                }
                None => wanted,
            };
            *turns += 1;
            observe(Event::Request {
                turn: *turns,
                tool_choice: &choice,
                tools: tools.len(),
            });
            let remaining = self.bounds.tokens.saturating_sub(*tokens);
            let request = Request {
                conversation,
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
                Err(ModelError::Interrupted) => return EndReason::Interrupted,
                Err(ModelError::Status { status, message })
                    if refuses_choice(status) && rung.is_some_and(|rung| rung < Rung::Auto) =>
                {
                    let (top, rung) = (top.unwrap_or_default(), rung.unwrap_or(Rung::Auto));
                    let step = self
                        .ladder
                        .refused(top, rung, status, message)
                        .expect("a rung above auto has one below");
                    tracing::warn!("{step}");
                    observe(Event::Ladder { step: &step });
                    continue;
                }
                Err(error) => {
                    return EndReason::Failed {
                        message: one_line(&error),
                    };
                }
            };
            if self.cancel.is_cancelled() {
                // Interrupted while the request was out: the answer's
                // calls never run.
                return EndReason::Interrupted;
            }
            // The request is answered: a queued override is used up.
            self.session.next_tool_choice(self.capabilities);
            *tokens += reply.usage.total();
            if !reply.text.is_empty() {
                observe(Event::Text {
                    text: &reply.text,
                    usage: reply.usage,
                });
            }
            let resolved = reply
                .calls
                .iter()
                .any(|call| call.name == RESOLVE_TOOL_NAME);
            let calls = reply.calls.clone();
            conversation.push(Message::Assistant {
                text: reply.text,
                calls: reply.calls,
            });
            for call in calls {
                let context = ToolContext::new(call.id.clone(), self.session.cwd().to_path_buf())
                    .with_cancellation(self.cancel.clone());
                let result = self.session.execute_owned(call.clone(), context);
                observe(Event::Call {
                    call: &call,
                    result: &result,
                });
                conversation.push(Message::ToolResult {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    text: result.text(),
                    is_error: result.is_error,
                });
            }
            if let (Some(top), Some(rung), false) = (top, rung, resolved) {
                match self.ladder.ignored(top, rung) {
                    Some(step) => {
                        tracing::warn!("{step}");
                        observe(Event::Ladder { step: &step });
                    }
                    None => {
                        let label = self
                            .session
                            .store()
                            .get(top)
                            .map(|entry| entry.action().label().to_owned())
                            .unwrap_or_default();
                        return EndReason::NeverResolved { label };
                    }
                }
                continue;
            }
            let called = matches!(
                conversation.messages.last(),
                Some(Message::ToolResult { .. })
            );
            if !called && !self.session.store().has_pending() {
                return EndReason::Finished;
            }
        }
    }

    /// The bound the loop has reached, if any.
    fn bound_reached(&self, started: Instant, turns: u32, tokens: u64) -> Option<EndReason> {
        if self.cancel.is_cancelled() {
            return Some(EndReason::Interrupted);
        }
        if let Some(limit) = self.bounds.time
            && started.elapsed() >= limit
        {
            return Some(EndReason::Time { limit });
        }
        if tokens >= self.bounds.tokens {
            return Some(EndReason::Tokens {
                used: tokens,
                limit: self.bounds.tokens,
            });
        }
        (turns >= self.bounds.turns).then_some(EndReason::Turns {
            limit: self.bounds.turns,
        })
    }

    /// The session's queued messages (the reminder of each push) go to the
    /// model as user text, after the tool results.
    fn take_reminders(&self, conversation: &mut Conversation) {
        for message in self.session.take_messages() {
            conversation.push(Message::User(message.text));
        }
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

#[cfg(test)]
mod tests;
