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
mod taught;

pub use build::{
    PACKS, build_example_with, c_pack_path, compat_pack_path, example_pack_path, pack_path,
    profile_dir,
};
pub use compat_source::{COMPAT_SOURCE_PACK, compat_source_pack_path};
pub use model_server::{LLAMA_CPP_PYTHON, ModelServer, free_port};
pub use python::{MCP_SDK, mcp_python};
pub use session::TestSession;
pub use taught::{
    TAUGHT_RELEASES, build_taught, changelog_migrations, migrate, taught_pack_name, taught_source,
};

/// Where a pack's panic message says it panicked: `file:line:column` of
/// the first `needle` (e.g. `panic!("boom")`) in the workspace file `file`
/// (as `file!()` names it, relative to the workspace root).
pub fn panic_site(file: &str, needle: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace");
    let source = std::fs::read_to_string(root.join(file))
        .unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    let (line, text) = source
        .lines()
        .enumerate()
        .find(|(_, text)| text.contains(needle))
        .unwrap_or_else(|| panic!("{needle} is not in {file}"));
    let column = text.find(needle).expect("found above") + 1;
    format!("{file}:{}:{column}", line + 1)
}
