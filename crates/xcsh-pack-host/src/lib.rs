//! The isolated pack's side of the pipe: what the hidden `xcsh pack-host`
//! subcommand does in the process the agent starts for one pack.
//!
//! It takes the protocol off standard input and output, answers the
//! agent's hello, limits and sandboxes itself (an address-space limit,
//! `PR_SET_NO_NEW_PRIVS`, Landlock, then a seccomp filter) and says how
//! before any of the pack's code runs, maps the sealed library the agent
//! handed over and opens the pack with the same loader and checks, then
//! serves the pack's calls, applies and rejects until the agent closes the
//! pipe. The pack's pushes are forwarded before the reply of the call that
//! made them.
//!
//! ```no_run
//! // The whole of the binary's `pack-host` subcommand:
//! if let Err(error) = xcsh_pack_host::serve() {
//!     eprintln!("xcsh pack-host: {error}");
//! }
//! ```
//!
//! Before all of that it closes every descriptor it inherited beyond
//! the ones the agent hands it and leaves the terminal it shares with the
//! agent (`detach`: `close_range` and one `ioctl`, with the built-in
//! namespaces' `fork`, `mount_setattr` and `capset` the crate's only
//! `unsafe` code).
//!
//! The agent's side (starting this process, handing it the library,
//! relaying its tools and actions) is `xcsh-isolate`; what both agree on is
//! `xcsh-isolate-protocol`. Only the `xcsh` binary depends on this crate:
//! the agent's crates must not (they would link the serve loop and the
//! sandbox a pack's process enters), and pack authors never see it.
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod detach;
// `fork`, `mount_setattr` and the loopback's `ioctl`, each with its
// safety note.
#[cfg(target_os = "linux")]
mod hidden;
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub mod namespaces;
mod open;
mod relief;
mod sandbox;
mod seccomp;
mod serve;
mod serve_error;
mod server;
mod writer;

pub use serve::serve;
pub use serve_error::ServeError;
