//! The agent's side of isolated tool packs: a pack may run in a process of
//! its own (the same `xcsh` binary, the hidden `pack-host` subcommand) from
//! the same library, so that a crash, an `abort()`, an `exit()`, a runaway
//! allocation or a loop that ignores cancellation costs only that pack's
//! call and actions.
//!
//! In the session an isolated pack's tools and pending actions are
//! ordinary tools and actions: same schemas, validation and `resolve`
//! semantics. Each session starts its own process per isolated pack (no
//! two sessions share one); it is started again after a crash, and a pack
//! whose process crashes [`MAX_CRASHES`] times within [`CRASH_WINDOW`] is
//! disabled.
//!
//! What is here, by file:
//!
//! - `policy`: which packs run isolated (`[isolation]`, `--isolate`,
//!   `XCSH_ISOLATE=1`), and their grants;
//! - `load`: loading a session's packs, each in its mode ([`SessionLoader`]);
//!   `start_record` and `deferred`: a pack offered from its last start,
//!   started at its first call;
//! - `pack`, `tool`, `remote_action`: an isolated pack, its tools and its
//!   pending actions as the session sees them; `process` (with
//!   `reply_wait`, `stderr_tail`, `ending`, `running`): one running
//!   process, its pipe and how it ended;
//! - `handover` and `identity`: what the agent gives a pack's process
//!   (its own image, the sealed library, only the `environment` granted)
//!   and takes from it (the tools; name, path and sandbox state only as
//!   the agent recorded them); `namespaces`: the namespaces it starts it
//!   in (set up by xcsh's own engine; `bwrap` only for the benchmark that
//!   compares), with `protected` paths kept read-only (`placeholders`
//!   where they do not exist yet); `sandbox_status`: the sandbox in words.
//!
//! ```no_run
//! use std::time::Duration;
//! use xcsh_core::Session;
//! use xcsh_isolate::{IsolationPolicy, SessionLoader};
//! use xcsh_loader::TrustPolicy;
//!
//! let session = Session::new(".");
//! let loader = SessionLoader {
//!     trust: &TrustPolicy::new(),
//!     // Every pack in a process of its own.
//!     isolation: &IsolationPolicy::new(None, true),
//!     timeout: Some(Duration::from_secs(30)),
//!     first_seen: None,
//! };
//! let loaded = loader.load(&session, &["target/debug/libbatch_rename.so".into()]);
//! for pack in &loaded.isolated {
//!     println!("{}: {}", pack.name, xcsh_isolate::describe_sandbox(&pack.sandbox));
//! }
//! ```
//!
//! The pack process's side (serving, sandboxing itself) is
//! `xcsh-pack-host`, and the wire contract `xcsh-isolate-protocol`; this
//! crate does not depend on the first, so the agent never links the serve
//! loop. Who depends on it: the agent's session assembly (`xcsh-agent`),
//! installed packs (`xcsh-installed`, whose checks run in a pack process),
//! the config's policy types (`xcsh-sources`) and the `xcsh` binary. Front
//! ends should go through `xcsh-agent`; tool-pack authors never depend on
//! it.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod bwrap;
mod deferred;
mod ending;
mod environment;
mod handover;
mod identity;
mod load;
mod namespaces;
mod pack;
mod placeholders;
mod policy;
mod process;
mod protected;
mod remote_action;
mod reply_wait;
mod running;
mod sandbox_status;
mod start_error;
mod start_record;
mod start_spec;
mod stderr_tail;
mod tool;

pub use ending::Ending;
pub use load::{IsolatedInfo, Loaded, SessionLoader};
pub use pack::{CRASH_WINDOW, IsolatedPack, MAX_CRASHES};
pub use policy::{
    Capability, ISOLATE_ENV, IsolationConfig, IsolationPolicy, PackIsolation, PackSettings,
    RequireSandbox, env_asks_for_isolation,
};
pub use process::{OnCrash, PackProcess};
pub use protected::Protected;
pub use running::wait_for_all;
pub use sandbox_status::describe_sandbox;
pub use start_error::StartError;
pub use start_spec::StartSpec;
pub use stderr_tail::MAX_LINE_BYTES;
pub use tool::{IsolatedTool, ToolSpecError};
