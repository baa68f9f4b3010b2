//! Support for xcsh's integration tests: builds the tool packs once per test
//! run with the same cargo and target directory as the tests, and a
//! [`TestSession`] that drives an `xcsh-core` session with packs loaded;
//! the local model server the `xcsh agent` tests talk to ([`ModelServer`])
//! and a [`loopback`] server that plays a scripted one.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod build;
mod compat_source;
pub mod loopback;
mod model_server;
mod python;
mod session;

pub use build::{
    PACKS, build_example_with, compat_pack_path, example_pack_path, pack_path, profile_dir,
};
pub use compat_source::{COMPAT_SOURCE_PACK, compat_source_pack_path};
pub use model_server::{LLAMA_CPP_PYTHON, ModelServer, free_port};
pub use python::{MCP_SDK, mcp_python};
pub use session::TestSession;
