//! How both ends of an isolated pack's pipe read it: the agent its pack's
//! replies (`xcsh-isolate`), the pack's process the agent's requests
//! (`xcsh-pack-host`). One type, [`SpinRead`]: a pipe's read end made
//! non-blocking, polled briefly with `xcsh-core`'s adaptive [`Spin`]
//! before it sleeps in `poll(2)`, with an optional deadline.
//!
//! ```
//! use std::io::{Read as _, Write as _};
//!
//! let (reader, mut writer) = std::io::pipe().unwrap();
//! let mut reader = xcsh_isolate_pipe::SpinRead::new(reader).unwrap();
//! writer.write_all(b"frame").unwrap();
//! drop(writer);
//! let mut got = Vec::new();
//! reader.read_to_end(&mut got).unwrap();
//! assert_eq!(got, b"frame");
//! ```
//!
//! A crate of its own, below both sides, as nushell keeps the machinery
//! both its plugin sides share in `nu-plugin-core`: the wire contract
//! (`xcsh-isolate-protocol`) stays plain data, and what speaks only the
//! protocol does not carry the agent's runtime. Only the two side crates
//! depend on it.
//!
//! [`Spin`]: xcsh_core::Spin
#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[cfg(unix)]
mod spin_read;

#[cfg(unix)]
pub use spin_read::SpinRead;
