//! Isolated tool packs: a pack may run in a process of its own (the same
//! `xcsh` binary, the hidden `pack-host` subcommand) from the same library,
//! so that a crash, an `abort()`, an `exit()`, a runaway allocation or a
//! loop that ignores cancellation costs only that pack's call and actions.
//!
//! In the session an isolated pack's tools and pending actions are
//! ordinary tools and actions: same schemas, validation and `resolve`
//! semantics. Each session starts its own process per isolated pack (no
//! two sessions share one); it is started again after a crash, and a pack
//! whose process crashes [`MAX_CRASHES`] times within [`CRASH_WINDOW`] is
//! disabled.
//!
//! - [`policy`]: which packs run isolated (`[isolation]`, `--isolate`,
//!   `XCSH_ISOLATE=1`);
//! - [`load`]: loading a session's packs, each in its mode;
//! - [`pack`], [`tool`], [`remote_action`], [`process`]: the agent's side;
//! - [`handover`] and [`identity`]: what the agent gives a pack's process
//!   (its own image, the sealed library) and takes from it (the tools;
//!   name, path and sandbox state only as the agent recorded them);
//! - [`serve`] (and [`serve_error`], why it stops), [`sandbox`] and
//!   [`seccomp`]: the pack process's side;
//!   [`bwrap`]: the namespaces the agent starts it in, with [`protected`]
//!   paths kept read-only ([`placeholders`] where they do not exist yet)
//!   and only the [`environment`] the pack needs;
//! - the wire contract is the `xcsh-isolate-protocol` crate.
//!
//! Who depends on it: the agent's session assembly (`xcsh-agent`), installed
//! packs (`xcsh-installed`, whose checks run in a pack process) and the
//! `xcsh` binary, which serves [`serve::serve`] as its hidden `pack-host`
//! subcommand. Front ends should not reach into the process machinery
//! ([`process`], [`wire`]) directly; tool-pack authors never depend on it.
#![forbid(unsafe_code)]

pub mod bwrap;
pub mod deferred;
pub mod ending;
pub mod environment;
pub mod handover;
pub mod identity;
pub mod load;
mod locked;
pub mod pack;
pub mod placeholders;
pub mod policy;
pub mod process;
pub mod protected;
mod relief;
pub mod remote_action;
mod reply_wait;
pub mod running;
pub mod sandbox;
pub mod seccomp;
pub mod serve;
pub mod serve_error;
pub mod spin_read;
pub mod start_record;
pub mod start_spec;
pub mod stderr_tail;
pub mod tool;
pub mod wire;

pub use load::{IsolatedInfo, Loaded, SessionLoader};
pub use pack::{CRASH_WINDOW, IsolatedPack, MAX_CRASHES};
pub use policy::{
    Capability, ISOLATE_ENV, IsolationConfig, IsolationPolicy, PackIsolation, PackSettings,
    RequireSandbox,
};
pub use protected::Protected;
pub use serve::SUBCOMMAND;
