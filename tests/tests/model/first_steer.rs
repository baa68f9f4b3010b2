//! The first steer after a preview, measured: `force` (resolve forced at
//! once) against `remind` (the tool choice left as it was, the session's
//! reminder asking; resolve forced for one request only when the model
//! does not call it). Two numbers per mode: requests per resolved preview
//! (the requests sent while the action was pending, the one answered with
//! `resolve` included), and tool-choice changes per preview (requests
//! whose `tool_choice` differs from the request before, counting the
//! request after the resolve: each change invalidates a provider's prompt
//! cache).
//!
//! Against scripted models (exact, in every test run): one that follows
//! the reminder, one that calls `resolve` only when forced. Against the
//! bundled local model (SmolLM2-135M under llama-cpp-python), in a
//! measurement run that takes minutes and is not part of `cargo test`:
//!
//! ```sh
//! cargo test -p xcsh-integration-tests --test model -- --ignored \
//!     first_steer::on_the_local_model --nocapture
//! ```
//!
//! docs/agent.md has the table.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::json;
use xcsh_core::{CancellationToken, ProviderCapabilities, ToolCall, ToolChoice};
use xcsh_model::{
    AnswerLimits, Api, Bounds, Conversation, Event, FirstSteer, Message, ModelError, ModelLoop,
    ModelSettings, Observer, Provider, Reply, Request, Usage,
};
use xcsh_test_support::ModelServer;

use crate::support::{DRAFTS, scripted_first_turn, session, workspace};

/// What a run of one mode came to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Tally {
    /// Previews the model resolved.
    resolved: u32,
    /// Previews made.
    previews: u32,
    /// Requests sent while something was pending.
    pending_requests: u32,
    /// Requests whose tool choice differs from the request before.
    changes: u32,
}

impl Tally {
    fn requests_per_resolved(&self) -> f64 {
        f64::from(self.pending_requests) / f64::from(self.resolved.max(1))
    }

    fn changes_per_preview(&self) -> f64 {
        f64::from(self.changes) / f64::from(self.previews.max(1))
    }

    fn add(&mut self, other: Tally) {
        self.resolved += other.resolved;
        self.previews += other.previews;
        self.pending_requests += other.pending_requests;
        self.changes += other.changes;
    }
}

/// Counts requests and choices as the loop reports them; `stop` cancels
/// the loop once `resolve` ran (a measurement of the local model sends
/// no request past it: the next one, `auto` with nothing pending, is
/// counted without being sent).
struct Count {
    tally: Tally,
    last_choice: Option<ToolChoice>,
    pending: bool,
    stop: Option<CancellationToken>,
}

impl Count {
    fn new(last_choice: Option<ToolChoice>, stop: Option<CancellationToken>) -> Self {
        Self {
            tally: Tally::default(),
            pending: last_choice.is_some(),
            last_choice,
            stop,
        }
    }

    fn choice(&mut self, choice: &ToolChoice) {
        if self.last_choice.as_ref().is_some_and(|last| last != choice) {
            self.tally.changes += 1;
        }
        self.last_choice = Some(choice.clone());
    }
}

impl Observer for Count {
    fn observe(&mut self, event: Event<'_>) {
        match event {
            Event::Request { tool_choice, .. } => {
                self.choice(tool_choice);
                if self.pending {
                    self.tally.pending_requests += 1;
                }
            }
            Event::Call { call, result }
                if call.name == "batch_rename_preview" && !result.is_error =>
            {
                self.tally.previews += 1;
                self.pending = true;
            }
            Event::Call { call, result } if call.name == "resolve" && !result.is_error => {
                self.tally.resolved += 1;
                self.pending = false;
                if let Some(stop) = self.stop.clone() {
                    // The next request would be `auto`, nothing pending.
                    self.choice(&ToolChoice::Auto);
                    stop.cancel();
                }
            }
            _ => {}
        }
    }
}

/// A scripted model over several previews: its first answer to each task
/// step is a preview; after a preview it calls `resolve` when forced, and
/// when not forced only if it follows reminders; after a resolve, the next
/// preview, until `previews` were made; then it is done.
struct Scripted {
    follows_reminders: bool,
    previews: u32,
    made: Mutex<u32>,
    answers: Mutex<VecDeque<Reply>>,
}

impl Scripted {
    fn new(follows_reminders: bool, previews: u32) -> Self {
        Self {
            follows_reminders,
            previews,
            made: Mutex::new(0),
            answers: Mutex::new(VecDeque::new()),
        }
    }
}

fn reply(calls: Vec<ToolCall>) -> Reply {
    Reply {
        text: String::new(),
        calls,
        usage: Usage {
            input: 100,
            output: 10,
            estimated: false,
        },
    }
}

impl Provider for Scripted {
    fn api(&self) -> &'static str {
        "scripted"
    }

    fn complete(
        &self,
        request: &Request<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Reply, ModelError> {
        if let Some(answer) = self.answers.lock().unwrap().pop_front() {
            return Ok(answer);
        }
        let resolve_offered = request.tools.iter().any(|tool| tool.name == "resolve");
        let forced = matches!(
            request.choice,
            ToolChoice::Tool { .. } | ToolChoice::Required
        );
        let reminded = matches!(
            request.conversation.messages.last(),
            Some(Message::User(text)) if text == xcsh_core::PREVIEW_REMINDER
        );
        if resolve_offered && (forced || (self.follows_reminders && reminded)) {
            let call = ToolCall::new(
                "r",
                "resolve",
                json!({"action": "discard", "reason": "measured"}),
            );
            return Ok(reply(vec![call]));
        }
        if resolve_offered {
            // Pending, not forced, not following the reminder: talk.
            return Ok(Reply {
                text: "I will look at it.".into(),
                ..reply(Vec::new())
            });
        }
        let mut made = self.made.lock().unwrap();
        if *made == self.previews {
            return Ok(Reply {
                text: "Done.".into(),
                ..reply(Vec::new())
            });
        }
        *made += 1;
        let call = ToolCall::new(
            format!("p{made}"),
            "batch_rename_preview",
            json!({"files": DRAFTS, "rule": {"kind": "prefix", "prefix": "final-"}}),
        );
        Ok(reply(vec![call]))
    }
}

fn scripted(follows_reminders: bool, first: FirstSteer) -> Tally {
    let dir = workspace();
    let (session, _) = session(&dir);
    let provider: Arc<dyn Provider> = Arc::new(Scripted::new(follows_reminders, 3));
    let (outcome, count) = ModelLoop::new(
        Arc::clone(&session.session),
        provider,
        ProviderCapabilities::default(),
        Bounds::default(),
    )
    .first_steer(first)
    .run(
        &mut Conversation::new(None, "Rename the drafts, three times."),
        Count::new(None, None),
    );
    assert_eq!(outcome.message, "the model finished");
    count.tally
}

#[test]
fn against_scripted_models_reminding_first_changes_no_tool_choice_for_a_model_that_follows_it() {
    let table =
        [("follows the reminder", true), ("needs forcing", false)].map(|(model, follows)| {
            (
                model,
                scripted(follows, FirstSteer::Force),
                scripted(follows, FirstSteer::Remind),
            )
        });
    for (model, force, remind) in &table {
        eprintln!(
            "{model}: force {:.2} requests/resolved, {:.2} changes/preview; remind {:.2}, {:.2}",
            force.requests_per_resolved(),
            force.changes_per_preview(),
            remind.requests_per_resolved(),
            remind.changes_per_preview()
        );
    }
    let [(_, force, remind), (_, force_forcing, remind_forcing)] = table;
    // Forcing at once: one request per preview, two changes (to the
    // forced choice and back), whatever the model.
    for tally in [force, force_forcing] {
        assert_eq!(tally.previews, 3);
        assert_eq!(tally.resolved, 3);
        assert_eq!(tally.requests_per_resolved(), 1.0);
        assert_eq!(tally.changes_per_preview(), 2.0);
    }
    // Reminding first: no change at all for a model that follows the
    // reminder; one request more and the same two changes for one that
    // needs forcing.
    assert_eq!(remind.resolved, 3);
    assert_eq!(remind.requests_per_resolved(), 1.0);
    assert_eq!(remind.changes_per_preview(), 0.0);
    assert_eq!(remind_forcing.resolved, 3);
    assert_eq!(remind_forcing.requests_per_resolved(), 2.0);
    assert_eq!(remind_forcing.changes_per_preview(), 2.0);
}

/// One session against the local model: the scripted first turn (a
/// preview), then the loop until `resolve` ran or the ladder ended.
fn local_session(server: &ModelServer, first: FirstSteer) -> Tally {
    let dir = workspace();
    let (session, _) = session(&dir);
    let mut conversation = scripted_first_turn(&session);
    let settings = ModelSettings {
        api: Api::Openai,
        base_url: server.base_url(),
        model: "smollm2-135m".into(),
        api_key_env: None,
        // This server cannot stream an `auto` request (it closes the
        // stream empty), and `remind` sends one.
        stream: false,
        limits: AnswerLimits::default(),
    };
    let provider: Arc<dyn Provider> = settings.connect().unwrap().into();
    let model_loop = ModelLoop::new(
        Arc::clone(&session.session),
        provider,
        ProviderCapabilities::default(),
        Bounds {
            turns: 4,
            answer_tokens: 128,
            ..Bounds::default()
        },
    )
    .first_steer(first);
    let stop = model_loop.cancellation();
    // The scripted preview's request was `auto` with nothing pending.
    let mut count = Count::new(Some(ToolChoice::Auto), Some(stop));
    count.tally.previews = 1;
    let mut model_loop = model_loop;
    let (_, count) = model_loop.run(&mut conversation, count);
    count.tally
}

#[test]
#[ignore = "a measurement: minutes against the local model (see the module's docs)"]
fn on_the_local_model() {
    let server = ModelServer::lock();
    let sessions: u32 = std::env::var("XCSH_STEER_SESSIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10);
    for first in [FirstSteer::Force, FirstSteer::Remind] {
        let mut total = Tally::default();
        let started = std::time::Instant::now();
        for _ in 0..sessions {
            let tally = local_session(&server, first);
            eprintln!("  {first}: {tally:?}");
            total.add(tally);
        }
        eprintln!(
            "| {first} | {} | {}/{} | {:.2} | {:.2} | {:.0?} |",
            sessions,
            total.resolved,
            total.previews,
            total.requests_per_resolved(),
            total.changes_per_preview(),
            started.elapsed()
        );
    }
}
