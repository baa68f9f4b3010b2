//! Loads xcsh native tool packs into sessions.
//!
//! The loader finds pack libraries ([`discover`]), opens each file once,
//! checks that open file (owner and mode, hashes, object headers: see
//! [`TrustPolicy`]) and maps that same file, never unloading it
//! ([`PackLibrary::open`]), checks it (abi_stable header, declared
//! ABI version, type layouts), calls its factory with a host API bound to one
//! session's pending-action store ([`HostBinding`]), and adapts the pack's
//! tools into ordinary [`xcsh_core::Tool`]s. A library exporting the plain
//! C interface (`xcsh_pack.h`, crate `xcsh-c-abi`) instead of an abi_stable
//! root module is a C pack; its tools are adapted the same way. One bad library never stops the
//! others: [`load_packs`] collects every failure into a [`LoadReport`].
//!
//! ```no_run
//! use xcsh_core::Session;
//! use xcsh_loader::{discover, load_packs};
//!
//! let session = Session::new(".");
//! let paths = discover::pack_files_in("target/debug".as_ref()).unwrap();
//! let report = load_packs(&session, &paths);
//! for line in report.problems() {
//!     eprintln!("{line}");
//! }
//! ```
//!
//! Tool-pack authors depend on `xcsh-plugin-api`, not on this crate.
#![deny(missing_docs)]
// Unsafe code lives in `crash` (the crash reporter's signal handler and the
// batch of standard output it writes out), in `c_pack` (calling packs
// written against the plain C interface) and in `SealedPack::inherited`
// (taking the descriptor a parent handed over) only.
#![deny(unsafe_code)]

#[cfg(unix)]
#[allow(unsafe_code)]
mod c_pack;
mod call_log;
mod convert;
mod crash;
pub mod discover;
mod error;
mod execute_context;
mod factory;
mod first_seen;
mod hash;
mod host_api;
mod library;
mod load;
mod own_file;
mod pack_action;
mod pack_config;
mod pack_file;
mod pack_tool;
mod preflight;
pub mod private_cache;
mod report;
mod safe_path;
#[cfg(target_os = "linux")]
mod seal_copy;
#[cfg(unix)]
mod sealed;
mod trust;

pub use crash::{BATCH_BYTES, BatchedStdout, ISOLATION_HINT, disable_crash_reports};
pub use error::LoadError;
pub use factory::{create_tools_in_process, create_tools_in_process_v2};
pub use first_seen::{FirstSeen, Probe, ProbeOutcome};
pub use hash::sha256_hex;
pub use host_api::{HostBinding, STORE_UNAVAILABLE};
pub use library::PackLibrary;
pub use load::{PackLoader, load_packs, load_packs_with};
pub use own_file::{OwnFile, check_own_file};
pub use pack_tool::PackTool;
pub use private_cache::{PrivateCache, identity_key};
pub use report::{LoadFailure, LoadReport, LoadedPack, ToolConflict};
#[cfg(unix)]
pub use sealed::SealedPack;
pub use trust::TrustPolicy;

#[cfg(test)]
mod tests {
    #[test]
    fn public_types_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<crate::PackTool>();
        assert_send_sync::<crate::PackLibrary>();
        assert_send_sync::<crate::HostBinding>();
        assert_send_sync::<crate::LoadReport>();
        assert_send_sync::<crate::LoadError>();
        assert_send_sync::<crate::TrustPolicy>();
    }
}
