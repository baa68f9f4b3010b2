//! Text that xcsh prints for people, made the same way everywhere: control
//! characters a pack or a caller chose made visible ([`escape`],
//! [`escape_controls`]), `a, b and c` lists and `2 packs` counts
//! ([`and_list`], [`count`]), and paths quoted as one shell word
//! ([`shell_word`]) for the commands xcsh tells people to run.
//!
//! Paths are bytes on Unix: [`escape::path`] shows each byte that is not
//! part of valid UTF-8 as `\xNN`, [`escape::unescape_path`] reads such a
//! name back, and [`shell_word`] quotes such a path as bash's `$'…'`.
//!
//! It sits below every other xcsh crate that words a message and depends on
//! nothing: it holds no policy, only wording helpers. It is published
//! because `xcsh-safe-fs` (and through it every tool pack) prints and reads
//! paths with it; tool-pack authors depend on `xcsh-plugin-api`, whose
//! `fs::name` is its path half.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod controls;
pub mod escape;
mod list;
mod shell;

pub use controls::escape_controls;
pub use list::{and_list, count};
pub use shell::shell_word;
