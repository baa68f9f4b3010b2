//! Installed packs: `xcsh pack add` checks a pack once, in a child process,
//! and records it with its tools' descriptors and a pinned SHA-256 in a
//! registry file (the format is `xcsh-sources`' `registry`); sessions offer
//! its tools from that record and open the library only when one of them
//! is first called.
//!
//! - [`check`]: checking a pack in a `xcsh pack-host` child;
//! - [`compare`]: a pack must offer the same tools at every load;
//! - [`build`]: building a pack crate directory first;
//! - [`lazy`]: a session's installed packs, opened at first use;
//! - [`offer`]: offering a registry's packs in a session.
//!
//! The `xcsh pack add/list/remove/verify` commands are the binary's front
//! end over this crate; the session assembly (`xcsh-agent`) calls
//! [`offer()`]. Tool-pack authors depend on `xcsh-plugin-api`, not on
//! this crate.
#![forbid(unsafe_code)]

pub mod build;
pub mod check;
pub mod compare;
pub mod lazy;
pub mod offer;

pub use lazy::{LazyPack, LazyTool, OpenContext};
pub use offer::offer;
