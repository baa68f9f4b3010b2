//! The wire contract between the xcsh agent and an isolated tool pack's
//! process, and what both ends of the pipe share.
//!
//! An isolated pack runs in a child process (the same `xcsh` binary, the
//! hidden [`SUBCOMMAND`]) that opens the pack with the same loader and
//! checks, and serves its tools over its standard input and output. The
//! agent's side is `xcsh-isolate`, the process's side `xcsh-pack-host`;
//! neither depends on the other, and this crate is what both need:
//!
//! - the messages, serde types encoded with `postcard`, each in a
//!   length-delimited [frame](frame), and the version handshake;
//! - the agent's tool values in their wire form ([`convert`]: outputs,
//!   errors, hints, log levels), as `nu-plugin-protocol` carries
//!   `nu-protocol`'s values;
//! - how a failure becomes one line ([`error_line`]), on either side;
//! - the namespace sandbox the agent plans and the process sets up
//!   ([`NamespacePlan`]).
//!
//! Plain data and no I/O beyond the frames: no process handling, no
//! loading, no pipe machinery (how both ends poll their pipe is
//! `xcsh-isolate-pipe`), so a program that only speaks the protocol (a
//! test pack forging messages) carries nothing of the agent's runtime.
//!
//! The conversation:
//!
//! 1. the host sends a [`Hello`] with [`PROTOCOL_VERSION`]; the child answers
//!    with its own [`Hello`] and stops if the versions differ
//!    ([`Hello::is_compatible_with`]);
//! 2. the host sends [`Request::Open`] with the pack's sealed library at
//!    descriptor [`PACK_FD`]; the child sandboxes itself and says how
//!    ([`Reply::Sandboxed`], before any of the pack's code runs), maps the
//!    library and answers [`Reply::Opened`] or [`Reply::OpenFailed`] (a
//!    failure to sandbox is [`Reply::OpenFailed`] at once);
//! 3. then any number of requests, each with a host-chosen id, answered by
//!    [`Reply::Done`] with the same id, in any order. While a request runs
//!    the child may send [`Reply::Progress`] and [`Reply::Log`] for it and [`Reply::Pushed`]
//!    for every pending action the pack pushes; a push is always sent
//!    before the reply of the call that made it.
//!
//! ```
//! use xcsh_isolate_protocol::{frame, Hello, PROTOCOL_VERSION};
//!
//! let mut wire = Vec::new();
//! frame::write(&mut wire, &Hello::current()).unwrap();
//! let hello: Hello = frame::read(&mut wire.as_slice(), &mut Vec::new()).unwrap().unwrap();
//! assert!(hello.is_compatible_with(&Hello::current()));
//! assert_eq!(hello.version, PROTOCOL_VERSION);
//! ```
//!
//! Only the two side crates (and a test pack that forges messages) depend
//! on this crate; tool-pack authors never see it, and front ends go through
//! `xcsh-isolate`.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod convert;
mod error_line;
pub mod frame;
mod hello;
mod message;
mod namespace_plan;
mod path_bytes;

pub use error_line::error_line;
pub use frame::FrameError;
pub use hello::{Hello, MAGIC, PROTOCOL_VERSION, SUBCOMMAND};
pub use message::{
    Block, Hints, LogLevel, OpenPack, Opened, Outcome, Output, PACK_FD, PushedAction, Reply,
    Request, SandboxRequest, SandboxStatus, ToolSpec,
};
pub use namespace_plan::{MountStep, NAMESPACES_FAILED, NAMESPACES_OPTION, NamespacePlan};
