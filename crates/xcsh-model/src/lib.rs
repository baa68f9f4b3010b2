//! The model loop of `xcsh agent`.
//!
//! A [`ModelLoop`] asks a model [`Provider`] for the next step, runs the
//! tool calls it answers with in an `xcsh_core` [`Session`] (approvals,
//! journal, time limits and isolation are the session's; the loop runs on
//! the session's thread through [`xcsh_core::drive`]), sends the
//! results and the session's queued reminders back, and takes each
//! request's tool choice from the session. While an action is pending the
//! choice goes down a [`Ladder`]: optionally the choice left as it was
//! with the session's reminder ([`FirstSteer::Remind`]), then `resolve`
//! forced by name, then only `resolve` offered with `required`, then
//! `auto` with the reminder; a rung the provider refuses is remembered for
//! the session, a rung the model ignores is left for the action at hand,
//! and a model that ignores every rung ends the loop with its actions
//! discarded. Every loop is bounded ([`Bounds`]: requests, tokens, calls
//! per answer, wall time) and interruptible (Ctrl-C ends an open request
//! at once).
//!
//! Two APIs: OpenAI-compatible Chat Completions and Anthropic Messages
//! ([`Api`], configured by [`ModelSettings`]), over ureq, streamed
//! (server-sent events) when asked. An answer is complete or it is an
//! error, and everything a server sends is bounded ([`AnswerLimits`]:
//! bytes, one call's arguments, every wait).
//!
//! Front ends (the `xcsh agent` subcommand) depend on this crate; tool
//! packs never do.
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use xcsh_core::{ProviderCapabilities, Session};
//! use xcsh_model::{AnswerLimits, Api, Bounds, Conversation, ModelLoop, ModelSettings};
//!
//! let settings = ModelSettings {
//!     api: Api::Openai,
//!     base_url: "http://127.0.0.1:8080/v1".to_owned(),
//!     model: "local".to_owned(),
//!     api_key_env: None,
//!     stream: true,
//!     limits: AnswerLimits::default(),
//! };
//! let provider = Arc::from(settings.connect().unwrap());
//! let session = Arc::new(Session::new("."));
//! let mut conversation = Conversation::new(None, "Rename the drafts");
//! let (outcome, _) = ModelLoop::new(
//!     session,
//!     provider,
//!     ProviderCapabilities::default(),
//!     Bounds::default(),
//! )
//! .run(&mut conversation, |event: xcsh_model::Event<'_>| println!("{event:?}"));
//! println!("{}", outcome.message);
//! ```
//!
//! [`Session`]: xcsh_core::Session
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod anthropic;
mod api_key;
mod asking;
mod bounds;
mod connect;
mod conversation;
mod error;
mod event;
mod http;
pub mod ladder;
mod limits;
mod model_loop;
mod model_turns;
mod observer;
mod openai;
mod provider;
mod refusal;
mod settings;
mod sse;
mod text;

pub use anthropic::ANTHROPIC_VERSION;
pub use bounds::Bounds;
pub use conversation::{Conversation, Message, ToolSpec};
pub use error::ModelError;
pub use event::{EndReason, Event, Outcome};
pub use ladder::{FirstSteer, Ladder, Rung};
pub use limits::AnswerLimits;
pub use model_loop::ModelLoop;
pub use model_turns::RESOLVE_REMINDER;
pub use observer::Observer;
pub use provider::{Provider, Reply, Request, Usage};
pub use settings::{Api, ModelSettings};

/// The system prompt `xcsh agent` sends unless told otherwise.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are xcsh, a coding agent. Use the tools to do the user's task. Tools that change files only preview the change and leave it pending: call the `resolve` tool with `apply` or `discard` (and a reason) to decide, before anything else.";
