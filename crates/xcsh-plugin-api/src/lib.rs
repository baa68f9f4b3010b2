//! The stable-ABI contract for xcsh native tool packs, and the safe layer
//! pack authors write against.
//!
//! A tool pack is a library crate that depends on this crate only. The
//! author implements [`Tool`] (or uses [`FnTool`] closures) with parameters
//! marked [`#[params]`](params), returns the tools from a factory, and
//! exports it with [`export_tool_pack!`]. No `unsafe`, no `extern`: every
//! entry point is wrapped so that a panic becomes an error value for that
//! call. `use xcsh_plugin_api::prelude::*;` brings in what a pack needs.
//!
//! The host (the `xcsh` agent, through its loader) calls the factory once per
//! session with a [`Host`] bound to that session's pending-action store.
//! Destructive tools preview first and push a [`PendingAction`]; nothing
//! changes until the model calls `resolve`. The [`guide`] says what happens
//! to an action from push to apply, discard or the end of the session, and
//! how to test a pack (the `xcsh-pack-test` crate runs its tools through
//! the real host path in an ordinary `#[test]`).
//!
//! The plain values a pack builds and returns ([`ToolOutput`],
//! [`ContentBlock`], [`ToolHints`], [`ToolError`], [`PendingAction`],
//! [`LogLevel`]) are the agent's own types, defined once in the
//! `xcsh-tool-types` crate: a [`PendingAction`] with a blank label is
//! refused where it is built, with the message the agent would give.
//!
//! Agents and loaders use [`abi`], the versioned FFI contract, and
//! [`in_process`] to serve a factory without a library. Pack authors
//! should not need either.
//!
//! # Example: a batch-rename pack
//!
//! `xcsh pack new NAME` writes a pack crate like this one, with a test.
//!
//! `Cargo.toml` (by version once the crates are on a registry; until then by
//! a path to a clone of the xcsh repository, at the revision of the agent
//! that will load the pack, as `xcsh pack new --sdk PATH` writes it):
//!
//! ```toml
//! [lib]
//! # cdylib: the library the agent loads. rlib: what the pack's own
//! # integration tests (tests/*.rs) link against; without it they cannot
//! # `use` the pack. Unit tests inside src/ work with cdylib alone.
//! crate-type = ["cdylib", "rlib"]
//!
//! [dependencies]
//! xcsh-plugin-api = "1.5"
//! # or: xcsh-plugin-api = { path = "../xcsh/crates/xcsh-plugin-api" }
//!
//! [dev-dependencies]
//! xcsh-pack-test = "0.1"
//! ```
//!
//! Which releases' code compiles against which is stated once, in the
//! [`guide`] ("Compatibility") and CHANGELOG.md.
//!
//! `src/lib.rs` (this is `examples/add_prefix_pack.rs`, which the tests
//! build as a library and load):
//!
//! ```
#![doc = include_str!("../examples/add_prefix_pack.rs")]
//! ```
//!
//! Serde, schemars and serde_json are re-exported, and [`params`] derives
//! through the re-exports, so a pack needs no other dependency and no
//! `#[serde(crate = …)]` attributes.
#![deny(missing_docs)]

pub mod abi;
#[doc(hidden)]
pub mod ffi;
pub mod guide;
pub mod in_process;
pub mod prelude;
pub mod sdk;

/// Safe file work for destructive tools: [`fs::confine`] (what
/// [`ToolContext::confined_path`] uses), and [`fs::Snapshot`] and
/// [`fs::WriteSet`] to check at apply time that files did not change since
/// the preview and to write them all or none, in place (the writer
/// `ast_edit` uses). The `xcsh-safe-fs` crate, re-exported.
pub use xcsh_safe_fs as fs;

pub use sdk::{
    ContentBlock, DIFF_CONTEXT_LINES, Factory, FnTool, Host, LogLevel, NoParams, PendingAction,
    PendingActionError, Tool, ToolContext, ToolError, ToolHints, ToolOutput, ToolPack,
    unified_diff,
};

/// Makes a struct or enum a tool's parameters.
///
/// `#[params]` derives serde's `Deserialize` and schemars' `JsonSchema`
/// through this crate's re-exports (no `#[serde(crate = …)]` needed) and
/// refuses unknown fields: the schema says `additionalProperties: false`,
/// so the host refuses a call with a field the type does not name, naming
/// it, before pack code runs (as it does for the built-in tools).
/// `#[params(allow_unknown_fields)]` accepts and ignores them instead.
///
/// Put it above your own derives; mark nested types (a field's struct or
/// enum) with it too. Other serde and schemars attributes work as usual,
/// except `deny_unknown_fields`, which `#[params]` already adds.
///
/// The doc comment of each field becomes its `description` in the schema:
/// it is what the model reads about that argument, so write it for the
/// model. The doc comment of the type itself is dropped from the schema
/// the model sees (the tool's [`description`](Tool::description) says what
/// the tool does).
///
/// ```
/// use xcsh_plugin_api::prelude::*;
///
/// #[params]
/// #[derive(Debug)]
/// struct Greet {
///     /// Who to greet.
///     name: String,
///     /// How, if not "Hello".
///     #[serde(default)]
///     greeting: Option<String>,
/// }
///
/// let greet: Greet = serde_json::from_value(json!({"name": "Ada"})).unwrap();
/// assert_eq!(greet.name, "Ada");
/// assert!(serde_json::from_value::<Greet>(json!({"name": "Ada", "nmae": 1})).is_err());
/// ```
pub use xcsh_plugin_api_macros::params;

pub use abi_stable;
pub use schemars;
pub use serde;
/// serde_json, the version this crate builds with. Its `Value` sorts an
/// object's keys; with this crate's `preserve-order` feature
/// (`xcsh-plugin-api = { version = "1.4", features = ["preserve-order"] }`)
/// it keeps them in the order they were read or inserted, as a pack that
/// edits JSON files wants (serde_json's `preserve_order`, turned on for
/// the pack's whole build).
pub use serde_json;
