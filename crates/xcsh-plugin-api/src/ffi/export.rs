//! The export machinery behind [`export_tool_pack!`](crate::export_tool_pack).

use abi_stable::library::{CheckTypeLayout, LibHeader, RootModuleResult};
use abi_stable::prefix_type::PrefixTypeTrait;
use abi_stable::std_types::{RResult, RStr, RVec};

use crate::abi::v1::{
    CustomToolApiHandle, CustomToolBox, CustomToolFactory, FfiError, ToolPackModule,
    ToolPackModuleRef,
};
use crate::abi::v2::{
    CustomToolApiV2Handle, CustomToolFactoryV2, ToolPackModuleV2, ToolPackModuleV2Ref,
};

/// Builds a pack's root module. Called once, when the host first loads the
/// library. Used by [`export_tool_pack!`](crate::export_tool_pack).
#[doc(hidden)]
pub fn __root_module(
    name: &'static str,
    version: &'static str,
    create_tools: extern "C" fn(CustomToolApiHandle) -> RResult<RVec<CustomToolBox>, FfiError>,
) -> ToolPackModuleRef {
    ToolPackModule {
        name: RStr::from_str(name),
        version: RStr::from_str(version),
        factory: CustomToolFactory { create_tools }.leak_into_prefix(),
    }
    .leak_into_prefix()
}

/// The library header a pack exports under abi_stable's root-module symbol.
/// Used by [`export_tool_pack!`](crate::export_tool_pack).
#[doc(hidden)]
pub const fn __lib_header(constructor: extern "C" fn() -> RootModuleResult) -> LibHeader {
    // SAFETY: `from_constructor::<M>` requires that `constructor` returns a
    // root module of type `M`. The only caller is `export_tool_pack!`, whose
    // constructor is `__call_root_module_loader` over `__root_module`, which
    // returns a `ToolPackModuleRef`: the `M` given here.
    unsafe { LibHeader::from_constructor::<ToolPackModuleRef>(constructor, CheckTypeLayout::Yes) }
}

/// Builds a version 2 pack's root module (what
/// [`export_tool_pack!`](crate::export_tool_pack) exports since 1.3.0).
/// `config_schema` is the JSON Schema of the pack's configuration, empty
/// when it takes none.
#[doc(hidden)]
pub fn __root_module_v2(
    name: &'static str,
    version: &'static str,
    config_schema: &'static str,
    create_tools: extern "C" fn(CustomToolApiV2Handle) -> RResult<RVec<CustomToolBox>, FfiError>,
) -> ToolPackModuleV2Ref {
    ToolPackModuleV2 {
        name: RStr::from_str(name),
        version: RStr::from_str(version),
        config_schema: RStr::from_str(config_schema),
        factory: CustomToolFactoryV2 { create_tools }.leak_into_prefix(),
    }
    .leak_into_prefix()
}

/// The JSON Schema of a configuration type, made once and kept for the
/// life of the process (the root module points at it).
#[doc(hidden)]
pub fn __config_schema<T: schemars::JsonSchema>() -> &'static str {
    let schema = schemars::schema_for!(T);
    Box::leak(
        serde_json::to_string(&schema)
            .unwrap_or_default()
            .into_boxed_str(),
    )
}

/// The library header of a version 2 pack.
#[doc(hidden)]
pub const fn __lib_header_v2(constructor: extern "C" fn() -> RootModuleResult) -> LibHeader {
    // SAFETY: as `__lib_header`: the only caller is `export_tool_pack!`,
    // whose constructor is `__call_root_module_loader` over
    // `__root_module_v2`, which returns a `ToolPackModuleV2Ref`.
    unsafe { LibHeader::from_constructor::<ToolPackModuleV2Ref>(constructor, CheckTypeLayout::Yes) }
}

/// Exports a tool pack: `export_tool_pack!(factory)` where
/// `fn factory(host: &Host) -> Result<ToolPack, ToolError>`, or
/// `export_tool_pack!(factory, config = T)` for a pack with a
/// configuration table of its own: `T` derives `Deserialize` and
/// `JsonSchema` (use [`#[params]`](crate::params) and
/// `#[serde(default)]`), the host validates the user's `[packs.NAME]`
/// table against its schema before the factory runs (a bad key fails the
/// load in one line naming it), and the factory reads it with
/// [`Host::config`](crate::Host::config).
///
/// Use it once, at the root of a `cdylib` crate. The pack's name and
/// version are its crate's. The factory runs once per session; panics in it
/// are caught and reported by the host. The pack declares ABI version 2
/// ([`abi::v2`](crate::abi::v2)): an agent that only knows version 1
/// refuses it, in one line.
///
/// A pack built with `panic = "abort"` does not compile: its panics could
/// not be caught, and the first one would kill the agent that loaded it.
#[macro_export]
macro_rules! export_tool_pack {
    ($factory:path) => {
        $crate::export_tool_pack!(@export $factory, "");
    };
    ($factory:path, config = $config:ty) => {
        $crate::export_tool_pack!(@export $factory, $crate::ffi::__config_schema::<$config>());
    };
    (@export $factory:path, $schema:expr) => {
        #[cfg(panic = "abort")]
        ::core::compile_error!(
            "xcsh tool packs cannot be built with panic = \"abort\": a panic could no longer be caught and turned into an error result, and would kill the agent that loaded the pack; build with panic = \"unwind\" (the default)"
        );

        const _: () = {
            extern "C" fn __xcsh_create_tools(
                api: $crate::abi::v2::CustomToolApiV2Handle,
            ) -> $crate::abi_stable::std_types::RResult<
                $crate::abi_stable::std_types::RVec<$crate::abi::v1::CustomToolBox>,
                $crate::abi::v1::FfiError,
            > {
                $crate::ffi::__create_tools_v2($factory, api)
            }

            fn __xcsh_root_module() -> $crate::abi::v2::ToolPackModuleV2Ref {
                $crate::ffi::__root_module_v2(
                    ::core::env!("CARGO_PKG_NAME"),
                    ::core::env!("CARGO_PKG_VERSION"),
                    $schema,
                    __xcsh_create_tools,
                )
            }

            extern "C" fn __xcsh_load_root_module() -> $crate::abi_stable::library::RootModuleResult
            {
                $crate::abi_stable::library::__call_root_module_loader(__xcsh_root_module)
            }

            // The symbol name is abi_stable's ROOT_MODULE_LOADER_NAME (a test
            // in this crate checks it).
            #[unsafe(no_mangle)]
            #[allow(non_upper_case_globals)]
            pub static _1as_0lib_1header_0root_bmodule_bloader:
                $crate::abi_stable::library::LibHeader =
                $crate::ffi::__lib_header_v2(__xcsh_load_root_module);
        };
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn export_symbol_is_abi_stables_root_module_loader() {
        assert_eq!(
            crate::abi::ROOT_MODULE_SYMBOL,
            "_1as_0lib_1header_0root_bmodule_bloader"
        );
    }
}
