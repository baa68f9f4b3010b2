//! Checks a file's object headers before the OS loader maps it.
//!
//! `dlopen` trusts the headers it is given: a library cut short maps
//! segments past the end of the file and the process dies on first touch
//! (SIGBUS or SIGSEGV). Reading the headers first turns a truncated file, a
//! text file or another architecture's library into a one-line error. Only
//! the headers are read, not the whole file.

use std::fs::File;
use std::path::Path;

use object::read::ReadCache;
use object::{Architecture, BinaryFormat, Object, ObjectKind, ObjectSegment};

use crate::LoadError;
use crate::error::one_line;

/// This host's object format.
fn host_format() -> Option<BinaryFormat> {
    if cfg!(target_os = "windows") {
        Some(BinaryFormat::Pe)
    } else if cfg!(target_vendor = "apple") {
        Some(BinaryFormat::MachO)
    } else if cfg!(unix) {
        Some(BinaryFormat::Elf)
    } else {
        None
    }
}

/// This host's architecture, where `object` names it.
fn host_architecture() -> Option<Architecture> {
    Some(match std::env::consts::ARCH {
        "x86_64" => Architecture::X86_64,
        "x86" => Architecture::I386,
        "aarch64" => Architecture::Aarch64,
        "arm" => Architecture::Arm,
        "riscv64" => Architecture::Riscv64,
        "powerpc64" => Architecture::PowerPc64,
        "s390x" => Architecture::S390x,
        "loongarch64" => Architecture::LoongArch64,
        _ => return None,
    })
}

/// Checks that `path` is a complete shared library for this host.
///
/// # Errors
///
/// [`LoadError::NotALibrary`], [`LoadError::Corrupt`],
/// [`LoadError::WrongArchitecture`] or [`LoadError::Truncated`].
pub(crate) fn check(path: &Path) -> Result<(), LoadError> {
    let file = File::open(path).map_err(|e| LoadError::Unreadable(e.to_string()))?;
    let size = file
        .metadata()
        .map_err(|e| LoadError::Unreadable(e.to_string()))?
        .len();
    let mut magic = [0u8; 4];
    let known_magic = std::io::Read::read_exact(&mut &file, &mut magic).is_ok()
        && (magic == *b"\x7fELF"
            || magic[..2] == *b"MZ"
            || matches!(
                u32::from_le_bytes(magic),
                0xfeed_face | 0xfeed_facf | 0xcafe_babe
            )
            || matches!(
                u32::from_be_bytes(magic),
                0xfeed_face | 0xfeed_facf | 0xcafe_babe
            ));
    if !known_magic {
        return Err(LoadError::NotALibrary(
            "unrecognised file format".to_owned(),
        ));
    }
    let cache = ReadCache::new(file);
    // The magic is right, so a file `object` cannot parse is damaged.
    let object = object::File::parse(&cache).map_err(|e| LoadError::Corrupt(one_line(e)))?;
    if let Some(format) = host_format()
        && object.format() != format
    {
        return Err(LoadError::NotALibrary(format!(
            "a {:?} file, this host loads {format:?}",
            object.format()
        )));
    }
    if let Some(host) = host_architecture()
        && object.architecture() != host
    {
        return Err(LoadError::WrongArchitecture {
            found: format!("{:?}", object.architecture()),
            host: format!("{host:?}"),
        });
    }
    if object.kind() != ObjectKind::Dynamic {
        return Err(LoadError::NotALibrary(format!(
            "a {:?} object, not a shared library",
            object.kind()
        )));
    }
    let needed = object
        .segments()
        .map(|segment| {
            let (offset, length) = segment.file_range();
            offset.saturating_add(length)
        })
        .max()
        .unwrap_or(0);
    if needed > size {
        return Err(LoadError::Truncated { size, needed });
    }
    Ok(())
}
