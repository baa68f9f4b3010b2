//! A session as every xcsh front end starts it: the built-in tools first,
//! then the packs at start-up (in process or isolated), then the installed
//! packs offered from their records ([`agent`]); the approval policies of
//! the configs and flags ([`approve`]), the journal ([`journal`]), the
//! undo snapshots around every apply ([`undo`]); the model `xcsh agent`
//! talks to, from its flags and the user's config ([`model`]).
//!
//! The front ends (`xcsh run`, `repl`, `mcp`, `tools`) depend on it; it
//! depends on none of them. Who asks a person (a terminal, an MCP client's
//! elicitation) is the front end's: this crate only installs the policies.
//! Tool-pack authors depend on `xcsh-plugin-api`, not on this crate.
#![forbid(unsafe_code)]

pub mod agent;
pub mod approve;
pub mod journal;
pub mod model;
pub mod undo;

pub use agent::{Agent, ToolSource, is_resolve, start_session, start_session_loaded};
