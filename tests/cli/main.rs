//! End-to-end tests of the `xcsh` binary: the real executable run as a
//! process over the real, built sample packs (built once per run by
//! `xcsh_test_support`), in temporary working and home directories.

mod agent;
mod agent_local;
mod agent_server;
mod approvals;
mod bytes_paths;
mod confinement;
mod crash;
mod discovery;
mod display;
mod first_seen;
mod hardening;
mod installed;
mod isolate;
mod journal;
mod limits;
mod mcp;
mod mcp_cancel;
mod mcp_conformance;
mod mcp_http;
mod mcp_http_modern;
mod mcp_http_server;
mod mcp_http_token;
mod mcp_listing;
mod mcp_logging;
mod mcp_progress;
mod mcp_shutdown;
mod mcp_wire;
mod own_files;
mod pack_config;
mod pack_new;
mod raw_http;
mod repl;
mod run;
mod support;
mod tools;
mod trust;
mod undo;
mod user_dirs;
mod writers;
