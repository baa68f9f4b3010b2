//! Opening pack libraries: the only place that loads code.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

use abi_stable::library::lib_header_from_path;
use abi_stable::sabi_types::VersionNumber;
use xcsh_plugin_api::abi::{self, v1::FfiErrorKind, v1::ToolPackModuleRef};

use crate::error::supported_versions;
use crate::{HostBinding, LoadError, PackTool};

/// An opened, checked pack library. Libraries are never unloaded (thread
/// locals and pending actions may point into them), so this lives for the
/// rest of the process.
pub struct PackLibrary {
    path: Arc<Path>,
    name: Arc<str>,
    version: String,
    module: ToolPackModuleRef,
}

/// Libraries opened so far, by canonical path: each is opened once.
static OPENED: LazyLock<Mutex<HashMap<PathBuf, &'static PackLibrary>>> =
    LazyLock::new(Default::default);

impl PackLibrary {
    /// Opens and checks the pack at `path`, or returns the one already
    /// opened from the same file.
    ///
    /// The pack's declared ABI version is read first and checked against the
    /// frozen types of that version; then abi_stable checks every type
    /// layout.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] naming the failed step.
    pub fn open(path: &Path) -> Result<&'static PackLibrary, LoadError> {
        std::fs::metadata(path).map_err(|e| LoadError::Unreadable(e.to_string()))?;
        let path = std::fs::canonicalize(path).map_err(|e| LoadError::Unreadable(e.to_string()))?;
        if let Some(&library) = lock_opened().get(&path) {
            return Ok(library);
        }
        let opened = Self::open_uncached(&path)?;
        // Another thread may have opened the same file meanwhile: keep the
        // first, so exactly one PackLibrary per file is leaked.
        Ok(*lock_opened()
            .entry(path)
            .or_insert_with(|| Box::leak(Box::new(opened))))
    }

    fn open_uncached(path: &Path) -> Result<Self, LoadError> {
        tracing::debug!(path = %path.display(), "opening tool pack");
        crate::preflight::check(path)?;
        // Leaks the library handle on purpose: never unloaded.
        let header = lib_header_from_path(path).map_err(LoadError::from_library)?;
        let declared = header.version_strings();
        let major = VersionNumber::new(declared)
            .map_err(|e| LoadError::InvalidHeader(crate::error::one_line(e)))?
            .major;
        if !abi::supported_major(major) {
            return Err(LoadError::IncompatibleVersion {
                declared: declared.version.to_string(),
                supported: supported_versions(),
            });
        }
        let module = header
            .init_root_module::<ToolPackModuleRef>()
            .map_err(LoadError::from_library)?;
        Ok(Self {
            path: path.into(),
            name: module.name().as_str().into(),
            version: module.version().as_str().to_owned(),
            module,
        })
    }

    /// The library's canonical path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pack's name (its crate name).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The pack's own version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Calls the pack's factory with a host API for `binding` and reads its
    /// tools.
    ///
    /// # Errors
    ///
    /// The factory's error or panic, an empty tool list, or the first
    /// invalid tool.
    pub fn create_tools(&self, binding: &HostBinding) -> Result<Vec<PackTool>, LoadError> {
        let create = self.module.factory().create_tools();
        let tools = create(binding.api(&self.name)).into_result().map_err(|e| {
            let message = crate::error::one_line(&e.message);
            match e.kind {
                FfiErrorKind::Panic => LoadError::FactoryPanicked(message),
                FfiErrorKind::Error => LoadError::Factory(message),
            }
        })?;
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
                    Arc::clone(&self.name),
                    Arc::clone(&self.path),
                    binding.call_timeout(),
                )
            })
            .collect()
    }
}

fn lock_opened() -> std::sync::MutexGuard<'static, HashMap<PathBuf, &'static PackLibrary>> {
    OPENED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl fmt::Debug for PackLibrary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackLibrary")
            .field("path", &self.path)
            .field("name", &self.name)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}
