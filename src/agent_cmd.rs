//! `xcsh agent`: a task for a model, whose tool calls run in the session
//! every front end uses (see [`xcsh_model`] for the loop and the
//! tool-choice ladder).
//!
//! The model comes from the flags, else the user's config's `[model]`
//! table; a key is only ever read from the environment variable named
//! there. The conversation prints as `xcsh run --pretty` prints calls
//! (`--json`: one JSON line per event). Ctrl-C ends an open request at
//! once and the loop at its next check, and what is pending is discarded,
//! as at every session end.

use std::io::{self, IsTerminal as _, Read as _, Write as _};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use serde_json::{Value, json};
use xcsh_agent::Agent;
use xcsh_agent::approve::flags::{FlagAnswer, NO_PERSON_IN_AGENT};
use xcsh_core::{ProviderCapabilities, Session};
use xcsh_model::{
    AnswerLimits, Bounds, Conversation, DEFAULT_SYSTEM_PROMPT, EndReason, Event, ModelLoop,
    Observer, Outcome,
};
use xcsh_script::{PENDING_SHOWN, Step};
use xcsh_sources::Settings;
use xcsh_text::escape;

use crate::cli::AgentArgs;
use crate::render;
use crate::terminal_approver::TerminalApprover;

/// Marks a step down the tool-choice ladder in the conversation.
pub const LADDER: &str = "↓";

/// Marks a request sent again after a transient failure.
pub const RETRY: &str = "↻";

/// Who answers an `ask`: the person at the terminal when the task came on
/// the command line and standard input is a terminal, else the flags.
pub fn set_approver(agent: &Agent, args: &AgentArgs) {
    let flags = match (args.approve_all, args.decline_all) {
        (true, _) => Some(FlagAnswer::ApproveAll),
        (_, true) => Some(FlagAnswer::DeclineAll),
        _ => None,
    };
    match flags {
        Some(answer) => agent.session.set_approver(Arc::new(answer)),
        None if !args.task.is_empty() && io::stdin().is_terminal() => {
            agent.session.set_approver(Arc::new(TerminalApprover));
        }
        None => agent
            .session
            .set_approver(Arc::new(FlagAnswer::Nobody(NO_PERSON_IN_AGENT))),
    }
}

/// Runs `xcsh agent`: exit status 0 when the model finished, 1 when a
/// bound, an interruption, a failed request or a model that never resolved
/// ended it.
///
/// # Errors
///
/// No task, no model settings, a missing key, or standard output cannot
/// be written.
pub fn run(agent: &Agent, args: &AgentArgs, settings: &Settings) -> anyhow::Result<ExitCode> {
    let task = task(args)?;
    let config = settings.model.as_ref();
    let mut model =
        xcsh_agent::model::model_settings(&args.model, config).map_err(anyhow::Error::msg)?;
    let first_steer =
        xcsh_agent::model::first_steer(&args.model, config).map_err(anyhow::Error::msg)?;
    model.limits = AnswerLimits {
        bytes: args.max_answer_bytes,
        argument_bytes: args.max_argument_bytes,
        request_time: nonzero(args.request_timeout),
        read_time: nonzero(args.read_timeout),
        ..AnswerLimits::default()
    };
    let provider = model.connect()?;
    let capabilities = xcsh_agent::model::capabilities(&args.model, config);
    let bounds = Bounds {
        turns: args.max_turns,
        tokens: args.max_tokens,
        answer_tokens: args.max_answer_tokens,
        calls_per_answer: args.max_calls_per_answer,
        time: (args.time_limit > 0).then(|| std::time::Duration::from_secs(args.time_limit)),
        retries: args.retries,
        ..Bounds::default()
    };
    let mut model_loop = ModelLoop::new(
        Arc::clone(&agent.session),
        Arc::from(provider),
        capabilities,
        bounds,
    )
    .first_steer(first_steer);
    let cancel = model_loop.cancellation();
    if let Err(error) = ctrlc::set_handler(move || cancel.cancel()) {
        tracing::warn!("Ctrl-C cannot stop the agent: {error}");
    }
    if !args.json {
        let mut out = io::stdout().lock();
        for line in render::loaded_packs(&agent.report) {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    }
    let mut conversation = Conversation::new(Some(DEFAULT_SYSTEM_PROMPT.to_owned()), task);
    let printer = Printer {
        session: Arc::clone(&agent.session),
        capabilities,
        json: args.json,
        calls: 0,
        failed: None,
    };
    let (outcome, printer) = model_loop.run(&mut conversation, printer);
    if let Some(error) = printer.failed {
        return Err(error).context("cannot write to standard output");
    }
    let mut out = io::stdout().lock();
    if args.json {
        let mut line = serde_json::to_value(&outcome).expect("an outcome serialises");
        line["event"] = json!("end");
        writeln!(out, "{line}")?;
    } else {
        writeln!(out, "{}", end_line(&outcome))?;
    }
    out.flush()?;
    Ok(if outcome.reason == EndReason::Finished {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `None` for zero (no limit).
fn nonzero(duration: std::time::Duration) -> Option<std::time::Duration> {
    (!duration.is_zero()).then_some(duration)
}

/// `Agent stopped: {reason}`, and how many actions were discarded.
pub fn end_line(outcome: &Outcome) -> String {
    let mut line = format!("Agent stopped: {}", escape::line(&outcome.message));
    if outcome.discarded > 0 {
        line.push_str(&format!(
            "; discarded {} (never applied)",
            xcsh_text::count(outcome.discarded, "pending action")
        ));
    }
    line
}

/// The task from the arguments, else standard input.
fn task(args: &AgentArgs) -> anyhow::Result<String> {
    let task = if args.task.is_empty() {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the task from standard input")?;
        text
    } else {
        args.task.join(" ")
    };
    let task = task.trim();
    if task.is_empty() {
        bail!("no task: give it as arguments or on standard input");
    }
    Ok(task.to_owned())
}

/// Prints events as they come, on the session's thread; remembers the
/// first write error.
struct Printer {
    session: Arc<Session>,
    capabilities: ProviderCapabilities,
    json: bool,
    calls: usize,
    failed: Option<io::Error>,
}

impl Observer for Printer {
    fn observe(&mut self, event: Event<'_>) {
        if self.failed.is_some() {
            return;
        }
        let text = match event {
            Event::Call { call, result } => {
                self.calls += 1;
                let step = Step {
                    line: self.calls,
                    id: Some(Value::String(call.id.clone())),
                    tool: Some(call.name.clone()),
                    result: result.clone(),
                    pending: self.session.store().summary(PENDING_SHOWN),
                    tool_choice: self.session.tool_choice(self.capabilities),
                    reminders: self
                        .session
                        .queued_messages()
                        .into_iter()
                        .map(|message| message.text)
                        .collect(),
                };
                if self.json {
                    let mut line = serde_json::to_value(&step).expect("a step serialises");
                    line["event"] = json!("call");
                    line["arguments"] = call.arguments.clone();
                    Some(line.to_string())
                } else {
                    Some(render::step(&step))
                }
            }
            _ if self.json => Some(serde_json::to_string(&event).expect("an event serialises")),
            Event::Text { text, .. } => Some(model_text(text)),
            Event::Ladder { step } => Some(format!("{LADDER} {}", escape::line(&step.to_string()))),
            Event::Retry {
                attempt,
                attempts,
                delay,
                error,
            } => Some(format!(
                "{RETRY} {}; retrying in {} s (attempt {attempt} of {attempts})",
                escape::line(error),
                delay.as_secs_f64()
            )),
            Event::NotRun { call, message } => Some(format!(
                "{} {}  {}",
                render::FAILED,
                escape::line(&call.name),
                escape::line(message)
            )),
            _ => None,
        };
        let mut out = io::stdout().lock();
        if let Some(text) = text
            && let Err(error) = writeln!(out, "{text}").and_then(|()| out.flush())
        {
            self.failed = Some(error);
        }
    }
}

/// The model's text: `model: ` and its first line, the rest indented;
/// control characters escaped.
fn model_text(text: &str) -> String {
    let mut lines = text.trim().lines().map(escape::text);
    let mut out = format!("model: {}", lines.next().unwrap_or_default());
    for line in lines {
        out.push_str("\n  ");
        out.push_str(&line);
    }
    out
}
