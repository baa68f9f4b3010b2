//! The life of a tool call and of a pending action, decided once for every
//! front end; how to choose parameters and test a pack.
//!
#![doc = include_str!("guide.md")]
