//! The root module a v1 pack exports.
#![allow(missing_docs)]

use abi_stable::library::RootModule;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::RStr;
use abi_stable::{StableAbi, declare_root_module_statics};

use super::CustomToolFactoryRef;

/// The ABI version a v1 pack declares. Pinned, not the crate version: the
/// crate may reach 1.y while v1 stays 1.0.0.
pub const ABI_VERSION: &str = "1.0.0";

/// A pack's root module: who it is and its factory.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = ToolPackModuleRef)))]
#[sabi(missing_field(panic))]
pub struct ToolPackModule {
    /// The pack's name (its crate name).
    pub name: RStr<'static>,
    /// The pack's own version (its crate version).
    pub version: RStr<'static>,
    /// Makes the pack's tools. End of the frozen v1 prefix.
    #[sabi(last_prefix_field)]
    pub factory: CustomToolFactoryRef,
}

impl RootModule for ToolPackModuleRef {
    declare_root_module_statics! {ToolPackModuleRef}
    const BASE_NAME: &'static str = "xcsh_tool_pack";
    const NAME: &'static str = "xcsh_tool_pack";
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(ABI_VERSION);
}

impl std::fmt::Debug for ToolPackModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolPackModule")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}
