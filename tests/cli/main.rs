//! End-to-end tests of the `xcsh` binary: the real executable run as a
//! process over the real, built sample packs (built once per run by
//! `xcsh_test_support`), in temporary working and home directories.

mod discovery;
mod hardening;
mod isolate;
mod mcp;
mod repl;
mod run;
mod support;
mod tools;
