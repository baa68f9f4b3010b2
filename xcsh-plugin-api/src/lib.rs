//! The stable-ABI contract for xcsh native tool packs, and the safe layer
//! pack authors write against.
//!
//! A tool pack is a `cdylib` that depends on this crate only. The author
//! implements [`Tool`] (or uses [`FnTool`] closures) with typed parameters,
//! returns the tools from a factory, and exports it with
//! [`export_tool_pack!`]. No `unsafe`, no `extern`: every entry point is
//! wrapped so that a panic becomes an error value for that call.
//!
//! The host (the `xcsh` agent, through its loader) calls the factory once per
//! session with a [`Host`] bound to that session's pending-action store.
//! Destructive tools preview first and push a [`PendingAction`]; nothing
//! changes until the model calls `resolve`.
//!
//! Agents and loaders use [`abi`], the versioned FFI contract. Pack authors
//! should not need it.
//!
//! # Example: a batch-rename pack
//!
//! `Cargo.toml` (this crate is not published on crates.io yet: depend on it
//! from a clone of the xcsh repository, by path or by git, at the revision
//! of the agent that will load the pack):
//!
//! ```toml
//! [lib]
//! # cdylib: the library the agent loads; rlib: so the pack's own tests
//! # can link it.
//! crate-type = ["cdylib", "rlib"]
//!
//! [dependencies]
//! xcsh-plugin-api = { path = "../xcsh/xcsh-plugin-api" }
//! # or, from the repository:
//! # xcsh-plugin-api = { git = "<URL of the xcsh repository>", rev = "<commit>" }
//! ```
//!
//! `src/lib.rs` (this is `examples/add_prefix_pack.rs`, which the tests
//! build as a library and load):
//!
//! ```
#![doc = include_str!("../examples/add_prefix_pack.rs")]
//! ```
//!
//! Serde and schemars are re-exported so a pack needs no other dependency;
//! a pack may equally depend on `serde` and `schemars` 1.x itself and drop
//! the `crate = …` attributes.
#![deny(missing_docs)]

pub mod abi;
#[doc(hidden)]
pub mod ffi;
pub mod sdk;

pub use sdk::{
    ContentBlock, FnTool, Host, LogLevel, PendingAction, Tool, ToolContext, ToolError, ToolHints,
    ToolOutput, ToolPack,
};

pub use abi_stable;
pub use schemars;
pub use serde;
pub use serde_json;
