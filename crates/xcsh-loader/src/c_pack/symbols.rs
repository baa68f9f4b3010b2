//! Finding a C pack's two symbols in a library (`dlopen`, `dlsym`).

use std::ffi::{CString, c_void};
use std::path::Path;

use xcsh_c_abi::{
    XCSH_PACK_ABI_VERSION, XCSH_PACK_ABI_VERSION_SYMBOL, XCSH_PACK_ENTRY_SYMBOL, XcshPackEntryFn,
};

use crate::LoadError;

/// A C pack's entry function, found in a library that stays loaded.
#[derive(Clone, Copy)]
pub(crate) struct CEntry(pub(super) XcshPackEntryFn);

/// Opens the library at `load_path` as the abi_stable loader does
/// (`RTLD_LAZY | RTLD_LOCAL`, never closed) and looks for the C
/// interface's version symbol. `Ok(None)`: not a C pack (or the OS loader
/// refused it: the Rust path then says why).
///
/// # Errors
///
/// [`LoadError::CInterface`] for a version this host does not load or a
/// version symbol without an entry.
pub(crate) fn probe(load_path: &Path) -> Result<Option<CEntry>, LoadError> {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(path) = CString::new(load_path.as_os_str().as_bytes()) else {
        return Ok(None);
    };
    // SAFETY: `path` is a NUL-terminated string; opening the library runs
    // its constructors, as the abi_stable loader's own `dlopen` of the same
    // file would right after. The handle is never closed (packs are never
    // unloaded).
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Ok(None);
    }
    let Some(version) = symbol(handle, XCSH_PACK_ABI_VERSION_SYMBOL) else {
        return Ok(None);
    };
    // SAFETY: the symbol is the pack's `const uint32_t`, as its header
    // declares it; the library stays mapped.
    let version = unsafe { version.cast::<u32>().read_unaligned() };
    if version != XCSH_PACK_ABI_VERSION {
        return Err(LoadError::CInterface(format!(
            "C pack built against xcsh_pack.h version {version}; this xcsh loads version \
             {XCSH_PACK_ABI_VERSION}: rebuild the pack with the header of this xcsh \
             (crates/xcsh-c-abi/include/xcsh_pack.h)"
        )));
    }
    let Some(entry) = symbol(handle, XCSH_PACK_ENTRY_SYMBOL) else {
        return Err(LoadError::CInterface(format!(
            "C pack exports {XCSH_PACK_ABI_VERSION_SYMBOL} but no {XCSH_PACK_ENTRY_SYMBOL} \
             function: define XcshStatus {XCSH_PACK_ENTRY_SYMBOL}(const XcshHost *, XcshPack *) \
             and rebuild it"
        )));
    };
    // SAFETY: the header declares `xcsh_pack_entry` with exactly this
    // signature; a library exporting the version symbol promises it.
    let entry = unsafe { std::mem::transmute::<*mut c_void, XcshPackEntryFn>(entry) };
    Ok(Some(CEntry(entry)))
}

/// The address of `name` in `handle`, if it exports it.
fn symbol(handle: *mut c_void, name: &str) -> Option<*mut c_void> {
    let name = CString::new(name).ok()?;
    // SAFETY: `handle` is a live handle from `dlopen`, `name` a
    // NUL-terminated string.
    let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
    (!address.is_null()).then_some(address)
}
