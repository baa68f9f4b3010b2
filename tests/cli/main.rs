//! End-to-end tests of the `xcsh` binary: the real executable run as a
//! process over the real, built sample packs (built once per run by
//! `xcsh_test_support`), in temporary working and home directories.

mod agent;
mod approvals;
mod confinement;
mod crash;
mod discovery;
mod display;
mod hardening;
mod installed;
mod isolate;
mod limits;
mod mcp;
mod mcp_wire;
mod pack_new;
mod repl;
mod run;
mod support;
mod tools;
mod trust;
