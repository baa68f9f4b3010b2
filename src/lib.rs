//! The `xcsh` binary's front ends, as a library so that `main` stays thin:
//! the command line ([`cli`]) and its wiring ([`app`]), and one module per
//! subcommand that is not a crate of its own.
//!
//! - [`tools`], [`run`], [`repl`]: listing the tools, a scripted session,
//!   an interactive one ([`render`] draws `--pretty` and the REPL;
//!   [`terminal_approver`] asks the REPL's person);
//! - [`agent_cmd`]: `xcsh agent`, a task for a model (the loop is the
//!   `xcsh-model` crate's);
//! - [`pack`]: `xcsh pack add/list/remove/verify`; [`template`]:
//!   `xcsh pack new`;
//! - [`trust`]: `xcsh trust`; [`journal`]: `xcsh journal`; [`undo`]:
//!   `xcsh undo` at a terminal;
//! - [`logging`]: log lines on stderr.
//!
//! Everything else is a crate of its own, below this one: `xcsh-agent`
//! (the session every front end starts, and which model `xcsh agent`
//! talks to), `xcsh-model` (the model loop and its providers), `xcsh-sources` (where packs and
//! policies come from), `xcsh-installed`, `xcsh-isolate`, `xcsh-mcp`
//! (`xcsh mcp`), `xcsh-script` (the JSON-lines protocol) and `xcsh-text`.
//! No crate depends on this one. Tool-pack authors depend on
//! `xcsh-plugin-api`.
#![forbid(unsafe_code)]

pub mod agent_cmd;
pub mod app;
pub mod cli;
pub mod first_seen;
pub mod journal;
pub mod logging;
pub mod pack;
pub mod render;
pub mod repl;
pub mod run;
pub mod template;
pub mod terminal_approver;
pub mod tools;
pub mod trust;
pub mod undo;
