//! Packs written against the plain C interface (`xcsh_pack.h`, the
//! `xcsh-c-abi` crate): found by their symbols ([`probe`]), their tools and
//! pending actions adapted to the v1 ABI's, so everything after the
//! factory (checks, time limits, crash reports, the journal, isolation)
//! is the same for both kinds of pack.

mod action;
mod host;
mod output;
mod symbols;
mod tool;

use std::path::Path;
use std::sync::Arc;

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{RResult, RVec};
use xcsh_c_abi::{XCSH_OK, XcshHints, XcshPack, XcshStr};
use xcsh_plugin_api::abi::v1::{CustomTool_TO, CustomToolBox, FfiError, FfiToolHints};
use xcsh_plugin_api::abi::v2::CustomToolApiV2Handle;

use crate::LoadError;
use crate::crash::{self, Call, Origin};
use host::HostTable;
pub(crate) use symbols::{CEntry, probe};
use tool::{CTool, hint};

/// The version a C pack reports as its ABI version.
pub(crate) const C_ABI_VERSION: &str = "c-1";

/// What the entry filled, its strings copied.
struct Filled {
    name: String,
    version: String,
    tools: Vec<CTool>,
}

impl CEntry {
    /// The pack's name and version: its entry called with a host table
    /// that has no store, at the library `path`.
    ///
    /// # Errors
    ///
    /// [`LoadError::Factory`] for an entry that refuses or fills an
    /// invalid table.
    pub(crate) fn describe(self, path: &Path) -> Result<(String, String), LoadError> {
        let file = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let origin = Origin::new(&file, "(C pack)", path);
        crash::install();
        let cwd = std::env::current_dir().unwrap_or_default();
        let host = HostTable::new(None, &file, &cwd, false, "{}");
        let filled = {
            let call = Call::factory(&origin);
            let _in_pack = crash::enter(&call);
            self.fill(&host)
        };
        let filled = filled.map_err(|e| LoadError::Factory(crate::error::one_line(e)))?;
        Ok((filled.name, filled.version))
    }

    /// The pack's tools for a session, bound to `api` (the factory
    /// [`PackLibrary::create_tools`](crate::PackLibrary::create_tools)
    /// calls, under the crash reporter).
    pub(crate) fn create_tools(
        self,
        name: &str,
        api: CustomToolApiV2Handle,
    ) -> RResult<RVec<CustomToolBox>, FfiError> {
        // The ABI's string writes bytes that are not UTF-8 as `\xNN`; a C
        // pack gets the bytes themselves.
        let cwd = xcsh_safe_fs::name::given(Path::new(""), api.cwd().as_str());
        let config = api.pack_config();
        let allowed = api.outside_root_allowed();
        let host = HostTable::new(Some(api), name, &cwd, allowed, &config);
        match self.fill(&host) {
            Ok(filled) => RResult::ROk(
                filled
                    .tools
                    .into_iter()
                    .map(|tool| CustomTool_TO::from_value(tool, TD_Opaque))
                    .collect(),
            ),
            Err(message) => RResult::RErr(FfiError::error(message)),
        }
    }

    /// Calls the entry with `host` and copies what it filled.
    fn fill(self, host: &Arc<HostTable>) -> Result<Filled, String> {
        let mut pack = XcshPack {
            name: XcshStr::none(),
            version: XcshStr::none(),
            tools: std::ptr::null(),
            tool_count: 0,
            error: XcshStr::none(),
        };
        // SAFETY: the pack's entry, with the signature the header declares;
        // the host table outlives the call and `pack` is writable.
        let status = unsafe { (self.0)(host.table(), &raw mut pack) };
        let text = |string: XcshStr, what: &str| -> Result<String, String> {
            // SAFETY: the pack's strings live as long as the library: for
            // the rest of the process.
            let bytes = unsafe { string.bytes() }.ok_or_else(|| format!("{what} is NULL"))?;
            String::from_utf8(bytes.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
        };
        if status != XCSH_OK {
            let why = text(pack.error, "error").unwrap_or_else(|_| "no reason given".to_owned());
            return Err(format!("xcsh_pack_entry returned {status}: {why}"));
        }
        let name = text(pack.name, "the pack's name")?;
        let version = text(pack.version, "the pack's version")?;
        if pack.tools.is_null() || pack.tool_count == 0 {
            return Ok(Filled {
                name,
                version,
                tools: Vec::new(),
            });
        }
        // SAFETY: the pack promises `tool_count` tools at `tools`, in
        // static storage.
        let tools = unsafe { std::slice::from_raw_parts(pack.tools, pack.tool_count) };
        let tools = tools
            .iter()
            .enumerate()
            .map(|(index, tool)| {
                let at = |what: &str| format!("tool #{}: {what}", index + 1);
                Ok(CTool {
                    name: text(tool.name, &at("name"))?,
                    label: text(tool.label, &at("label"))?,
                    description: text(tool.description, &at("description"))?,
                    parameters: text(tool.parameters_json, &at("parameters"))?,
                    hints: hints(tool.hints),
                    execute: tool.execute.ok_or_else(|| at("has no execute function"))?,
                    tool_data: tool.tool_data,
                    host: Arc::clone(host),
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Filled {
            name,
            version,
            tools,
        })
    }
}

fn hints(hints: XcshHints) -> FfiToolHints {
    FfiToolHints {
        read_only: hint(hints.read_only),
        destructive: hint(hints.destructive),
        idempotent: hint(hints.idempotent),
        open_world: hint(hints.open_world),
    }
}
