//! Calling a pack's factory and reading its tools: the same for a library
//! the loader opened and for a factory linked into this process.

use std::path::Path;
use std::sync::Arc;

use abi_stable::std_types::{RResult, RVec};
use xcsh_plugin_api::abi::v1::{CustomToolApiHandle, CustomToolBox, FfiError};

use crate::convert;
use crate::crash::Origin;
use crate::{HostBinding, LoadError, PackTool};

/// The `create_tools` entry of a pack's v1 factory, as a Rust closure.
pub(crate) type CreateTools<'a> =
    dyn FnOnce(CustomToolApiHandle) -> RResult<RVec<CustomToolBox>, FfiError> + 'a;

/// Calls `create_tools` with a host API for `binding` and adapts the tools
/// it returns, as the pack `name` from `path`.
pub(crate) fn create_tools(
    name: &Arc<str>,
    path: &Arc<Path>,
    origin: &Arc<Origin>,
    create_tools: Box<CreateTools<'_>>,
    binding: &HostBinding,
) -> Result<Vec<PackTool>, LoadError> {
    let created = {
        let call = crate::crash::Call::factory(origin);
        let _in_pack = crate::crash::enter(&call);
        create_tools(binding.api(name, origin))
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
    let path: Arc<Path> = Path::new(&format!("<in-process {name}>")).into();
    let origin = Origin::new(name, "in-process", &path);
    self::create_tools(
        &name.into(),
        &path,
        &origin,
        Box::new(create_tools),
        binding,
    )
}
