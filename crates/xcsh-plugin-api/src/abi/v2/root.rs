//! The root module of a version 2 pack.
#![allow(missing_docs)]

use abi_stable::library::RootModule;
use abi_stable::sabi_types::VersionStrings;
use abi_stable::std_types::RStr;
use abi_stable::{StableAbi, declare_root_module_statics};

use super::CustomToolFactoryV2Ref;

/// The ABI version a version 2 pack declares.
pub const ABI_VERSION: &str = "2.0.0";

/// What a version 2 pack exports.
#[repr(C)]
#[derive(StableAbi)]
#[sabi(kind(Prefix(prefix_ref = ToolPackModuleV2Ref)))]
#[sabi(missing_field(panic))]
pub struct ToolPackModuleV2 {
    /// The pack's name (its crate name).
    pub name: RStr<'static>,
    /// The pack's version.
    pub version: RStr<'static>,
    /// The JSON Schema of the pack's configuration table, or empty when it
    /// takes none (then any table the user writes for it is refused).
    pub config_schema: RStr<'static>,
    /// Makes the pack's tools.
    #[sabi(last_prefix_field)]
    pub factory: CustomToolFactoryV2Ref,
}

impl RootModule for ToolPackModuleV2Ref {
    declare_root_module_statics! {ToolPackModuleV2Ref}
    const BASE_NAME: &'static str = "xcsh_tool_pack";
    const NAME: &'static str = "xcsh_tool_pack";
    const VERSION_STRINGS: VersionStrings = VersionStrings::new(ABI_VERSION);
}

impl std::fmt::Debug for ToolPackModuleV2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolPackModuleV2")
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}
