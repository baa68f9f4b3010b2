//! The FFI contract between the xcsh host and a tool pack.
//!
//! Everything here is `#[repr(C)]` and [`StableAbi`](abi_stable::StableAbi):
//! the host checks the layout of every type at load time. Pack authors do not
//! use these types directly; the [`sdk`](crate::sdk) builds them.
//!
//! # How the ABI grows
//!
//! abi_stable lets a *newer* library meet an *older* host, never the
//! reverse: a host whose vtable or root module has gained an entry refuses a
//! pack built before it. So a released ABI version is **frozen**:
//!
//! 1. The types of ABI version N live in module `vN` and never change
//!    (not a field, not a method, not a name). [`v1`] is version 1.
//! 2. A pack declares its ABI version in its root module's version strings
//!    ([`v1::ABI_VERSION`]); the loader reads that first and checks the pack
//!    against the frozen types of that version ([`supported_major`]).
//! 3. New capabilities arrive as new types in a new module (`v2`, with its own
//!    root module and vtables), and the loader learns to adapt both. Packs
//!    built against `v1` keep loading.
//! 4. The crate stays 1.x: every type layout carries this crate's version, and
//!    abi_stable accepts a 1.0.0 pack in a 1.y host as long as the root
//!    module's version strings stay pinned to the frozen ABI version.
//!
//! The last method of each v1 vtable is marked `last_prefix_field`; it is the
//! end of the frozen prefix, not an invitation to append.

pub mod v1;
pub mod v2;

/// The ABI major versions this crate's host side can load, newest first.
pub const SUPPORTED_ABI_MAJORS: &[u32] = &[2, 1];

/// True if a pack declaring ABI version `major.x.y` can be loaded.
pub fn supported_major(major: u32) -> bool {
    SUPPORTED_ABI_MAJORS.contains(&major)
}

/// The name of the symbol every pack exports (abi_stable's root-module
/// loader).
pub const ROOT_MODULE_SYMBOL: &str = abi_stable::library::ROOT_MODULE_LOADER_NAME;
