//! One request of the loop: the ladder's rung chooses the tool choice and
//! the tools, transient failures are retried (bounded, within the time
//! limit, each retry reported), a refused forced choice steps the ladder
//! down, and the reply's calls are queued (at most
//! [`Bounds::calls_per_answer`](crate::Bounds::calls_per_answer) of them).

use std::time::{Duration, Instant};

use xcsh_core::{RESOLVE_TOOL_NAME, Session, ToolChoice};

use crate::event::{EndReason, Event};
use crate::ladder::{Proof, Rung};
use crate::model_turns::{Answered, ModelTurns, RESOLVE_REMINDER};
use crate::refusal::{Verdict, verdict};
use crate::{Message, ModelError, Observer, Reply, Request, ToolSpec};

/// The longest wait between two attempts (before the server's own
/// `Retry-After`).
const RETRY_DELAY_MAX: Duration = Duration::from_secs(60);

/// How often a wait for a retry looks at Ctrl-C.
const PAUSE_SLICE: Duration = Duration::from_millis(20);

/// A request that failed, after how many attempts.
struct Failure {
    error: ModelError,
    attempts: u32,
}

impl<O: Observer> ModelTurns<O> {
    /// Sends one request and queues the reply's calls. A forced choice
    /// the provider refuses steps the ladder down and the request goes
    /// again at the next rung; an error that may be a refusal is counted
    /// one only once a lower rung's request goes through, and a server
    /// that fails at every rung has failed.
    pub(crate) fn ask(&mut self, session: &Session) -> Result<(), EndReason> {
        for message in session.take_messages() {
            self.conversation.push(Message::User(message.text));
        }
        let top = session.store().peek().map(|entry| entry.id());
        let mut rung = top.map(|id| self.ladder.rung(id));
        // Forced rungs that failed as a refusal might, waiting for a lower
        // rung's request to go through.
        let mut unsure: Vec<(Rung, u16, String)> = Vec::new();
        loop {
            if let Some(reason) = self.bound_reached() {
                return Err(reason);
            }
            let (tools, choice) = self.request_for(session, top, rung);
            self.turns += 1;
            self.observer.observe(Event::Request {
                turn: self.turns,
                tool_choice: &choice,
                tools: tools.len(),
            });
            let failure = match self.send(&tools, &choice) {
                Ok(reply) => {
                    let top_id = top.unwrap_or_default();
                    for (failed, status, message) in unsure.drain(..) {
                        self.step_refused(top_id, failed, status, message, Proof::AcceptedWithout);
                    }
                    return self.take_reply(session, top, rung, &choice, reply);
                }
                Err(failure) => failure,
            };
            match &failure.error {
                ModelError::Interrupted => return Err(EndReason::Interrupted),
                ModelError::TimeLimit => {
                    return Err(EndReason::Time {
                        limit: self.bounds.time.unwrap_or_default(),
                    });
                }
                _ => {}
            }
            let (Some(top_id), Some(at)) = (top, rung) else {
                return Err(failed(&failure));
            };
            match verdict(&failure.error, rung) {
                Verdict::Refused { status, message } => {
                    self.step_refused(top_id, at, status, message, Proof::Named);
                    rung = Some(self.ladder.rung(top_id));
                }
                Verdict::Unsure { status, message } => match self.ladder.below(at) {
                    Some(lower) => {
                        tracing::info!(
                            "HTTP {status} to tool choice {at}: trying {lower} to tell a refusal from a failure"
                        );
                        unsure.push((at, status, message));
                        rung = Some(lower);
                    }
                    None => return Err(failed(&failure)),
                },
                Verdict::Failed => return Err(failed(&failure)),
            }
        }
    }

    /// The tools offered and the tool choice for a request at `rung`.
    fn request_for(
        &mut self,
        session: &Session,
        top: Option<u64>,
        rung: Option<Rung>,
    ) -> (Vec<ToolSpec>, ToolChoice) {
        let mut tools: Vec<ToolSpec> = session
            .offered_tools()
            .iter()
            .map(|tool| ToolSpec::of(tool.as_ref()))
            .collect();
        let choice = match rung {
            // A forced or silenced choice of an override is not "as it
            // was" for a preview: it would not let the model resolve.
            Some(Rung::Unforced) => match &self.unsteered {
                ToolChoice::Required => ToolChoice::Required,
                _ => ToolChoice::Auto,
            },
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
        (tools, choice)
    }

    /// Sends the request, and again after a transient failure while
    /// attempts and time are left.
    fn send(&mut self, tools: &[ToolSpec], choice: &ToolChoice) -> Result<Reply, Failure> {
        let attempts = self.bounds.retries.saturating_add(1);
        let remaining = self.bounds.tokens.saturating_sub(self.tokens);
        let max_tokens = self
            .bounds
            .answer_tokens
            .min(u32::try_from(remaining).unwrap_or(u32::MAX))
            .max(1);
        let mut attempt = 1;
        loop {
            let request = Request {
                conversation: &self.conversation,
                tools,
                choice,
                max_tokens,
                deadline: self.deadline,
            };
            let error = match self.provider.complete(&request, &self.cancel) {
                Ok(reply) => return Ok(reply),
                Err(error) => error,
            };
            let delay = self.retry_delay(attempt, &error);
            let fits = delay.is_some_and(|delay| {
                self.deadline
                    .is_none_or(|deadline| Instant::now() + delay < deadline)
            });
            if attempt >= attempts || !error.is_transient() || !fits {
                return Err(Failure {
                    error,
                    attempts: attempt,
                });
            }
            let delay = delay.unwrap_or_default();
            attempt += 1;
            let line = error.one_line();
            tracing::warn!(
                "model request failed ({line}); retrying in {delay:?} (attempt {attempt} of {attempts})"
            );
            self.observer.observe(Event::Retry {
                attempt,
                attempts,
                delay,
                error: &line,
            });
            if !self.pause(delay) {
                return Err(Failure {
                    error: ModelError::Interrupted,
                    attempts: attempt,
                });
            }
        }
    }

    /// The wait before retrying after attempt `attempt` failed with
    /// `error`: the delay doubled at each attempt, or the server's
    /// `Retry-After` when longer.
    fn retry_delay(&self, attempt: u32, error: &ModelError) -> Option<Duration> {
        let backoff = self
            .bounds
            .retry_delay
            .checked_mul(1 << (attempt - 1).min(16))?
            .min(RETRY_DELAY_MAX);
        Some(backoff.max(error.retry_after().unwrap_or_default()))
    }

    /// Waits `delay`; `false` when Ctrl-C came first.
    fn pause(&self, delay: Duration) -> bool {
        let until = Instant::now() + delay;
        loop {
            if self.cancel.is_cancelled() {
                return false;
            }
            let now = Instant::now();
            if now >= until {
                return true;
            }
            std::thread::sleep(PAUSE_SLICE.min(until - now));
        }
    }

    /// Steps the ladder down from refused `rung` and reports it.
    fn step_refused(&mut self, top: u64, rung: Rung, status: u16, message: String, proof: Proof) {
        if let Some(step) = self.ladder.refused(top, rung, status, message, proof) {
            tracing::warn!("{step}");
            self.observer.observe(Event::Ladder { step: &step });
        }
    }

    /// Takes the model's reply to a request at `rung`: its text reported,
    /// its calls queued (those past the per-answer limit kept to be
    /// refused), everything added to the conversation.
    fn take_reply(
        &mut self,
        session: &Session,
        top: Option<u64>,
        rung: Option<Rung>,
        choice: &ToolChoice,
        reply: Reply,
    ) -> Result<(), EndReason> {
        if self.cancel.is_cancelled() {
            // Interrupted while the request was out: the answer's calls
            // never run.
            return Err(EndReason::Interrupted);
        }
        // The request is answered: a queued override is used up.
        session.next_tool_choice(self.capabilities);
        if rung.is_none() {
            self.unsteered = choice.clone();
        }
        self.tokens += reply.usage.total();
        if !reply.text.is_empty() {
            self.observer.observe(Event::Text {
                text: &reply.text,
                usage: reply.usage,
            });
        }
        let limit = self.bounds.calls_per_answer as usize;
        let (run, not_run) = reply.calls.split_at(reply.calls.len().min(limit));
        let resolved = run.iter().any(|call| call.name == RESOLVE_TOOL_NAME);
        self.queue.extend(run.iter().cloned());
        self.not_run = not_run.to_vec();
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
}

/// [`EndReason::Failed`] for `failure`, saying how often it was tried.
fn failed(failure: &Failure) -> EndReason {
    let mut message = failure.error.one_line();
    if failure.attempts > 1 {
        message.push_str(&format!(" (after {} attempts)", failure.attempts));
    }
    EndReason::Failed { message }
}

#[cfg(test)]
mod tests;
