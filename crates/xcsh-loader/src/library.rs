//! Opening pack libraries: the only place that loads code.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::SystemTime;

use abi_stable::library::{LibHeader, lib_header_from_path};
use abi_stable::sabi_types::VersionNumber;
use xcsh_plugin_api::abi::{self, v1::ToolPackModuleRef, v2::ToolPackModuleV2Ref};

use crate::error::supported_versions;
use crate::factory::Entry;
use crate::pack_file::PackFile;
use crate::{HostBinding, LoadError, PackTool};

/// An opened, checked pack library. Libraries are never unloaded (thread
/// locals and pending actions may point into them), so this lives for the
/// rest of the process.
pub struct PackLibrary {
    path: Arc<Path>,
    name: Arc<str>,
    version: String,
    abi_version: String,
    built: Option<SystemTime>,
    module: Module,
}

/// A pack's root module, by the ABI version it declares.
#[derive(Clone, Copy)]
enum Module {
    V1(ToolPackModuleRef),
    V2(ToolPackModuleV2Ref),
    /// A pack written against the plain C interface.
    #[cfg(unix)]
    C(crate::c_pack::CEntry),
}

/// Libraries opened so far, by canonical path: each is opened once.
static OPENED: LazyLock<Mutex<HashMap<PathBuf, &'static PackLibrary>>> =
    LazyLock::new(Default::default);

/// A pack library on its way to being opened, in three steps that
/// [`load_packs`](crate::load_packs) runs in turn for all its packs: the
/// first and last in parallel, the middle one (`dlopen`) one library at a
/// time.
pub(crate) enum Opening {
    /// Opened before: the library as it was.
    Opened(&'static PackLibrary),
    /// Open, its headers checked ([`PackLibrary::preflight`]), not yet
    /// mapped.
    Checked(PackFile),
}

/// A pack library after [`Opening::map`].
pub(crate) enum Mapped {
    /// Opened before: the library as it was.
    Opened(&'static PackLibrary),
    /// Mapped and its declared ABI version accepted; its layouts not yet
    /// checked.
    Header(PathBuf, Option<SystemTime>, &'static LibHeader),
    /// Mapped, exporting the plain C interface at a version this host
    /// loads; its entry not yet called.
    #[cfg(unix)]
    C(PathBuf, Option<SystemTime>, crate::c_pack::CEntry),
}

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
        Self::preflight(PackFile::open(path)?.sealed()?)?
            .map()?
            .check()
    }

    /// [`open`](Self::open) after checking the open file against `trust`
    /// (owner and mode, and any pins it holds), as loading does: the file
    /// checked is the file mapped.
    ///
    /// # Errors
    ///
    /// A [`LoadError`] naming the failed step or check.
    pub fn open_trusted(
        path: &Path,
        trust: &crate::TrustPolicy,
    ) -> Result<&'static PackLibrary, LoadError> {
        let file = PackFile::open(path)?.sealed()?;
        trust.check_file(&file)?;
        Self::preflight(file)?.map()?.check()
    }

    /// Whether this process opened the library at canonical `path` already.
    pub(crate) fn is_opened(path: &Path) -> bool {
        lock_opened().contains_key(path)
    }

    /// The first step of [`open`](Self::open): the library already opened
    /// from this file's path, or the open file's object headers checked.
    pub(crate) fn preflight(file: PackFile) -> Result<Opening, LoadError> {
        if let Some(&library) = lock_opened().get(file.path()) {
            return Ok(Opening::Opened(library));
        }
        tracing::debug!(path = %file.path().display(), "opening tool pack");
        refuse_static_library(&file)?;
        crate::preflight::check(file.file())?;
        Ok(Opening::Checked(file))
    }
}

impl Opening {
    /// The second step: maps the checked file itself (leaking the handle on
    /// purpose: it is never unloaded) and checks the ABI version it
    /// declares.
    ///
    /// On Linux the OS loader opens `/proc/self/fd/N`, the descriptor the
    /// checks read, so a file swapped in at the path meanwhile is never
    /// the one loaded; elsewhere the file at the path is loaded and then
    /// proven to be the one checked (device, inode, size, time).
    pub(crate) fn map(self) -> Result<Mapped, LoadError> {
        let file = match self {
            Self::Opened(library) => return Ok(Mapped::Opened(library)),
            Self::Checked(file) => file,
        };
        let (load_path, by_descriptor) = file.load_path();
        let canonical = file.path().to_path_buf();
        let built = file.built();
        // A C pack is told by its symbols, before abi_stable looks for a
        // root module it does not have.
        #[cfg(unix)]
        match crate::c_pack::probe(&load_path) {
            Ok(None) => {}
            found => {
                let verified = if by_descriptor {
                    Ok(())
                } else {
                    file.verify_loaded()
                };
                file.keep_open_forever();
                let entry = found?.expect("matched above");
                verified?;
                return Ok(Mapped::C(canonical, built, entry));
            }
        }
        let loaded = lib_header_from_path(&load_path).map_err(LoadError::from_library);
        let verified = if by_descriptor || loaded.is_err() {
            Ok(())
        } else {
            file.verify_loaded()
        };
        file.keep_open_forever();
        let header = loaded?;
        verified?;
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
        Ok(Mapped::Header(canonical, built, header))
    }
}

impl Mapped {
    /// The last step: abi_stable checks every type layout and initialises
    /// the root module; the library is remembered by its canonical path.
    pub(crate) fn check(&self) -> Result<&'static PackLibrary, LoadError> {
        let (path, built, header) = match self {
            Self::Opened(library) => return Ok(library),
            Self::Header(path, built, header) => (path, *built, header),
            #[cfg(unix)]
            Self::C(path, built, entry) => {
                let (name, version) = entry.describe(path)?;
                let opened = PackLibrary {
                    path: path.as_path().into(),
                    name: name.into(),
                    version,
                    abi_version: crate::c_pack::C_ABI_VERSION.to_owned(),
                    built: *built,
                    module: Module::C(*entry),
                };
                return Ok(remember(path, opened));
            }
        };
        let major = VersionNumber::new(header.version_strings())
            .map_err(|e| LoadError::InvalidHeader(crate::error::one_line(e)))?
            .major;
        // The package and version the pack's root module type comes from
        // (`xcsh-plugin-api` and the version the pack was built with), so
        // a layout mismatch can say which side is older.
        let sdk = header.layout().and_then(crate::error::declaring_package);
        let refused = |error| {
            LoadError::from_library_with(
                error,
                sdk.as_ref()
                    .map(|(package, version)| (*package, version.as_str())),
            )
        };
        let (module, name, version) = if major == 1 {
            let module = header
                .init_root_module::<ToolPackModuleRef>()
                .map_err(refused)?;
            (Module::V1(module), module.name(), module.version())
        } else {
            let module = header
                .init_root_module::<ToolPackModuleV2Ref>()
                .map_err(refused)?;
            (Module::V2(module), module.name(), module.version())
        };
        let opened = PackLibrary {
            path: path.as_path().into(),
            name: name.as_str().into(),
            version: version.as_str().to_owned(),
            abi_version: header.version_strings().version.to_string(),
            built,
            module,
        };
        Ok(remember(path, opened))
    }
}

/// Remembers `opened` as the library at canonical `path`. Another thread
/// may have opened the same file meanwhile: the first is kept, so exactly
/// one `PackLibrary` per file is leaked.
fn remember(path: &Path, opened: PackLibrary) -> &'static PackLibrary {
    let mut opened_so_far = lock_opened();
    let kept: &&'static PackLibrary = opened_so_far
        .entry(path.to_path_buf())
        .or_insert_with(|| Box::leak(Box::new(opened)));
    kept
}

impl PackLibrary {
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

    /// When the library file was last written (its build time), if the
    /// file system says.
    pub fn built(&self) -> Option<SystemTime> {
        self.built
    }

    /// The `xcsh-plugin-api` ABI version the pack declares, e.g. `1.0.0`,
    /// or `c-1` for a pack written against version 1 of `xcsh_pack.h`.
    pub fn abi_version(&self) -> &str {
        &self.abi_version
    }

    /// Calls the pack's factory with a host API for `binding` and reads its
    /// tools.
    ///
    /// # Errors
    ///
    /// The factory's error or panic, an empty tool list, or the first
    /// invalid tool.
    pub fn create_tools(&self, binding: &HostBinding) -> Result<Vec<PackTool>, LoadError> {
        let origin = crate::crash::Origin::new(&self.name, &self.version, &self.path);
        crate::crash::install();
        let entry = match self.module {
            Module::V1(module) => {
                let create = module.factory().create_tools();
                Entry::V1(Box::new(move |api| create(api)))
            }
            Module::V2(module) => {
                let create = module.factory().create_tools();
                Entry::V2 {
                    config_schema: module.config_schema().as_str(),
                    create: Box::new(move |api| create(api)),
                }
            }
            #[cfg(unix)]
            Module::C(entry) => {
                let name = Arc::clone(&self.name);
                Entry::V2 {
                    config_schema: "",
                    create: Box::new(move |api| entry.create_tools(&name, api)),
                }
            }
        };
        crate::factory::create_tools(&self.name, &self.path, &origin, entry, binding)
    }
}

/// The start of an `ar` archive: what `cargo build` makes of a crate
/// without `crate-type = ["cdylib", …]` (an `rlib`), or a C `.a`.
const AR_MAGIC: &[u8; 8] = b"!<arch>\n";

/// Refuses a static library (an `rlib` or `.a` archive), naming the
/// library a `cdylib` build would make beside it.
fn refuse_static_library(file: &PackFile) -> Result<(), LoadError> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let mut magic = [0u8; 8];
    let mut reader = file.file();
    let read = reader.seek(SeekFrom::Start(0)).is_ok() && reader.read_exact(&mut magic).is_ok();
    if !read || &magic != AR_MAGIC {
        return Ok(());
    }
    let path = file.path();
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    let crate_name = stem.strip_prefix("lib").unwrap_or(&stem);
    Err(LoadError::StaticLibrary {
        file: path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default(),
        library: crate::discover::pack_file_name(crate_name),
    })
}

fn lock_opened() -> std::sync::MutexGuard<'static, HashMap<PathBuf, &'static PackLibrary>> {
    xcsh_core::sync::lock(&OPENED)
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
