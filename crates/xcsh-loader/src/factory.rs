//! Calling a pack's factory and reading its tools: the same for a library
//! the loader opened and for a factory linked into this process.

use std::path::Path;
use std::sync::Arc;

use abi_stable::std_types::{RResult, RVec};
use xcsh_plugin_api::abi::v1::{CustomToolApiHandle, CustomToolBox, FfiError};
use xcsh_plugin_api::abi::v2::CustomToolApiV2Handle;

use crate::convert;
use crate::crash::Origin;
use crate::{HostBinding, LoadError, PackTool};

/// What a factory returns.
type Created = RResult<RVec<CustomToolBox>, FfiError>;

/// The `create_tools` entry of a pack's factory, as a Rust closure, by
/// the ABI version the pack declares.
pub(crate) enum Entry<'a> {
    /// A version 1 factory.
    V1(Box<dyn FnOnce(CustomToolApiHandle) -> Created + 'a>),
    /// A version 2 factory, and the JSON Schema of the pack's
    /// configuration (empty: none).
    V2 {
        config_schema: &'a str,
        create: Box<dyn FnOnce(CustomToolApiV2Handle) -> Created + 'a>,
    },
}

/// Calls `create_tools` with a host API for `binding` and adapts the tools
/// it returns, as the pack `name` from `path`.
pub(crate) fn create_tools(
    name: &Arc<str>,
    path: &Arc<Path>,
    origin: &Arc<Origin>,
    entry: Entry<'_>,
    binding: &HostBinding,
) -> Result<Vec<PackTool>, LoadError> {
    // The host API is made (and the configuration checked) before the
    // pack's code runs; only the factory call itself is the pack's.
    let run: Box<dyn FnOnce() -> Created + '_> = match entry {
        Entry::V1(create) => {
            let api = binding.api(name, origin);
            Box::new(move || create(api))
        }
        Entry::V2 {
            config_schema,
            create,
        } => {
            let table = binding.settings().config(name);
            let config = crate::pack_config::checked(name, config_schema, table)?;
            let api = binding.api_v2(name, origin, config);
            Box::new(move || create(api))
        }
    };
    let created = {
        let call = crate::crash::Call::factory(origin);
        let _in_pack = crate::crash::enter(&call);
        run()
    };
    let tools = created.into_result().map_err(convert::factory_error)?;
    if tools.is_empty() {
        return Err(LoadError::NoTools);
    }
    tools
        .into_iter()
        .enumerate()
        .map(|(i, tool)| {
            PackTool::new(
                tool,
                i + 1,
                Arc::clone(name),
                Arc::clone(path),
                Arc::clone(origin),
            )
        })
        .collect()
}

/// Adapts the tools of a pack whose v1 factory is linked into this process
/// instead of loaded from a library: the host path a loaded pack's tools
/// take (host API, schema checks, adapter, time limit) without building or
/// opening one. Test harnesses use it (`xcsh-pack-test`); the agent loads
/// libraries with [`load_packs`](crate::load_packs).
///
/// `name` is the pack's name; its tools report the path
/// `<in-process NAME>`.
///
/// # Errors
///
/// As [`PackLibrary::create_tools`](crate::PackLibrary::create_tools): the
/// factory's error or panic, an empty tool list, or the first invalid tool.
pub fn create_tools_in_process(
    name: &str,
    create_tools: impl FnOnce(CustomToolApiHandle) -> RResult<RVec<CustomToolBox>, FfiError>,
    binding: &HostBinding,
) -> Result<Vec<PackTool>, LoadError> {
    in_process(name, Entry::V1(Box::new(create_tools)), binding)
}

/// As [`create_tools_in_process`], for a factory served the ABI version 2
/// host API (what packs built with `xcsh-plugin-api` 1.3 and later get):
/// the session's `--allow-outside-root` and the pack's configuration table
/// from the binding's [`PackOptions`](xcsh_core::PackOptions), checked
/// against `config_schema` (JSON Schema; empty when the pack takes none)
/// first, as for a loaded pack.
///
/// # Errors
///
/// As [`create_tools_in_process`], and [`LoadError::Config`] for a
/// configuration table the schema refuses.
pub fn create_tools_in_process_v2(
    name: &str,
    config_schema: &str,
    create_tools: impl FnOnce(CustomToolApiV2Handle) -> RResult<RVec<CustomToolBox>, FfiError>,
    binding: &HostBinding,
) -> Result<Vec<PackTool>, LoadError> {
    in_process(
        name,
        Entry::V2 {
            config_schema,
            create: Box::new(create_tools),
        },
        binding,
    )
}

/// A factory linked into this process, as the pack `name` at the path
/// `<in-process NAME>`.
fn in_process(
    name: &str,
    entry: Entry<'_>,
    binding: &HostBinding,
) -> Result<Vec<PackTool>, LoadError> {
    let path: Arc<Path> = Path::new(&format!("<in-process {name}>")).into();
    let origin = Origin::new(name, "in-process", &path);
    create_tools(&name.into(), &path, &origin, entry, binding)
}
