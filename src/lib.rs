//! The `xcsh` agent as a library: everything the `xcsh` binary does, one
//! module per concern, so that front ends (the CLI, the MCP server), the
//! benchmarks and the fuzz targets share one implementation.
//!
//! - [`sources`] and [`config`]: where tool packs come from; [`project`]
//!   and [`trust_store`]: which project directories the user trusts;
//! - [`agent`]: a session with the built-ins first, then the packs;
//! - [`approve`]: approval policies and who is asked; [`journal`]: the
//!   journal of pushes, resolves and answers, and `xcsh journal`;
//! - [`script`]: the JSON-lines protocol of `xcsh run` and `xcsh repl`;
//! - [`tools`], [`run`], [`repl`], [`mcp`], [`trust`], [`agent_cmd`]: the subcommands; [`render`]: `--pretty`;
//! - [`template`]: `xcsh pack new`, a new tool-pack crate;
//! - [`installed`]: `xcsh pack add/list/remove/verify` and installed packs
//!   (the user's, then a trusted project's) offered from their records,
//!   opened at first use;
//! - [`escape`]: control characters made visible in everything people read;
//! - [`isolate`]: packs in processes of their own (`--isolate`);
//! - [`app`]: the whole command line, start to finish.
//!
//! Tool-pack authors depend on `xcsh-plugin-api`, not on this crate.
#![forbid(unsafe_code)]

pub mod agent;
pub mod agent_cmd;
pub mod app;
pub mod approve;
pub mod cli;
pub mod config;
pub mod escape;
pub mod installed;
pub mod isolate;
pub mod journal;
pub mod logging;
pub mod mcp;
pub mod private_file;
pub mod project;
pub mod render;
pub mod repl;
pub mod run;
pub mod script;
pub mod sources;
pub mod template;
pub mod tools;
pub mod trust;
pub mod trust_store;
