//! Checks a file's object headers before the OS loader maps it.
//!
//! `dlopen` trusts the headers it is given: a library cut short maps
//! segments past the end of the file and the process dies on first touch
//! (SIGBUS or SIGSEGV). Reading the headers first turns a truncated file, a
//! text file or another architecture's library into a one-line error. Only
//! the headers are read, not the whole file: for ELF, the file header and
//! the program headers, and the section-header table is only checked to lie
//! inside the file (its contents, the symbol tables and the rest are what
//! `dlopen` never reads). Mach-O and PE go through `object`'s whole-file
//! parser.

use std::fs::File;

use object::elf::{FileHeader32, FileHeader64};
use object::read::ReadCache;
use object::read::elf::{FileHeader, ProgramHeader};
use object::{Architecture, BinaryFormat, Endianness, FileKind, Object, ObjectKind, ObjectSegment};

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

/// What the headers say about a file, as `object` names it.
struct Headers {
    format: BinaryFormat,
    architecture: Architecture,
    kind: ObjectKind,
    /// Where the last byte of file the segments map ends.
    segments_end: u64,
}

/// Checks that the open `file` is a complete shared library for this host.
///
/// # Errors
///
/// [`LoadError::NotALibrary`], [`LoadError::Corrupt`],
/// [`LoadError::WrongArchitecture`] or [`LoadError::Truncated`].
pub(crate) fn check(file: &File) -> Result<(), LoadError> {
    let size = file
        .metadata()
        .map_err(|e| LoadError::Unreadable(e.to_string()))?
        .len();
    let mut magic = [0u8; 4];
    // From the start, whatever read the file before (the hash).
    let known_magic = std::io::Seek::seek(&mut &*file, std::io::SeekFrom::Start(0)).is_ok()
        && std::io::Read::read_exact(&mut &*file, &mut magic).is_ok()
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
    // The magic is right, so a file whose headers do not parse is damaged.
    let headers = match FileKind::parse(&cache).map_err(corrupt)? {
        FileKind::Elf32 => elf_headers::<FileHeader32<Endianness>>(&cache, size)?,
        FileKind::Elf64 => elf_headers::<FileHeader64<Endianness>>(&cache, size)?,
        _ => {
            let object = object::File::parse(&cache).map_err(corrupt)?;
            Headers {
                format: object.format(),
                architecture: object.architecture(),
                kind: object.kind(),
                segments_end: segments_end(object.segments().map(|s| s.file_range())),
            }
        }
    };
    if let Some(format) = host_format()
        && headers.format != format
    {
        return Err(LoadError::NotALibrary(format!(
            "a {:?} file, this host loads {format:?}",
            headers.format
        )));
    }
    if let Some(host) = host_architecture()
        && headers.architecture != host
    {
        return Err(LoadError::WrongArchitecture {
            found: format!("{:?}", headers.architecture),
            host: format!("{host:?}"),
        });
    }
    if headers.kind != ObjectKind::Dynamic {
        return Err(LoadError::NotALibrary(format!(
            "a {:?} object, not a shared library",
            headers.kind
        )));
    }
    if headers.segments_end > size {
        return Err(LoadError::Truncated {
            size,
            needed: headers.segments_end,
        });
    }
    Ok(())
}

fn corrupt(error: object::read::Error) -> LoadError {
    LoadError::Corrupt(one_line(error))
}

/// The end of the furthest of these `(offset, length)` file ranges.
fn segments_end(ranges: impl Iterator<Item = (u64, u64)>) -> u64 {
    ranges
        .map(|(offset, length)| offset.saturating_add(length))
        .max()
        .unwrap_or(0)
}

/// Reads an ELF file's header and program headers, and checks that its
/// section-header table lies inside the file, with `object`'s own errors.
fn elf_headers<Elf: FileHeader<Endian = Endianness>>(
    data: &ReadCache<&File>,
    size: u64,
) -> Result<Headers, LoadError> {
    let header = Elf::parse(data).map_err(corrupt)?;
    let endian = header.endian().map_err(corrupt)?;
    let segments = header.program_headers(endian, data).map_err(corrupt)?;
    let section_table_offset: u64 = header.e_shoff(endian).into();
    if section_table_offset != 0 {
        let count = header.shnum(endian, data).map_err(corrupt)?;
        let entry_size = header.e_shentsize(endian);
        if usize::from(entry_size) != size_of::<Elf::SectionHeader>() {
            return Err(LoadError::Corrupt(
                "Invalid ELF section header entry size".to_owned(),
            ));
        }
        let end = u64::from(count)
            .checked_mul(u64::from(entry_size))
            .and_then(|length| length.checked_add(section_table_offset));
        if end.is_none_or(|end| end > size) {
            return Err(LoadError::Corrupt(
                "Invalid ELF section header offset/size/alignment".to_owned(),
            ));
        }
    }
    let (architecture, kind) = identify::<Elf>(header)?;
    Ok(Headers {
        format: BinaryFormat::Elf,
        architecture,
        kind,
        segments_end: segments_end(segments.iter().map(|s| s.file_range(endian))),
    })
}

/// The architecture and kind `object` gives an ELF file, from its file
/// header alone: `object` reads both from the header's fields, so it parses
/// a copy of the header whose program- and section-table offsets are zeroed
/// (no tables, nothing else to read).
fn identify<Elf: FileHeader>(header: &Elf) -> Result<(Architecture, ObjectKind), LoadError> {
    // e_phoff and e_shoff: 8 bytes each at 0x20 and 0x28 in ELF64, 4 bytes
    // each at 0x1C and 0x20 in ELF32.
    let (width, phoff, shoff) = if header.is_class_64() {
        (8, 0x20, 0x28)
    } else {
        (4, 0x1C, 0x20)
    };
    // u64 words: the parser wants the header aligned.
    let mut words = [0u64; 8];
    let bytes = object::pod::bytes_of_slice_mut(&mut words);
    let original = object::pod::bytes_of(header);
    bytes[..original.len()].copy_from_slice(original);
    bytes[phoff..phoff + width].fill(0);
    bytes[shoff..shoff + width].fill(0);
    let only_header = object::File::parse(&bytes[..original.len()]).map_err(corrupt)?;
    Ok((only_header.architecture(), only_header.kind()))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::path::Path;

    use super::*;

    /// The check before it read only headers: `object`'s whole-file parse,
    /// section and symbol tables included.
    fn whole_file_check(path: &Path) -> Result<(), LoadError> {
        let file = File::open(path).unwrap();
        let size = file.metadata().unwrap().len();
        let cache = ReadCache::new(&file);
        let object = object::File::parse(&cache).map_err(corrupt)?;
        if object.architecture() != host_architecture().unwrap() {
            return Err(LoadError::WrongArchitecture {
                found: format!("{:?}", object.architecture()),
                host: format!("{:?}", host_architecture().unwrap()),
            });
        }
        if object.kind() != ObjectKind::Dynamic {
            return Err(LoadError::NotALibrary(format!(
                "a {:?} object, not a shared library",
                object.kind()
            )));
        }
        let needed = segments_end(object.segments().map(|s| s.file_range()));
        if needed > size {
            return Err(LoadError::Truncated { size, needed });
        }
        Ok(())
    }

    /// Damaged copies of an ELF file (this test binary, a position-
    /// independent executable, so `Dynamic` to `object`) get the same
    /// verdict, word for word, from the header-only check as from parsing
    /// the whole file.
    #[test]
    fn header_only_check_agrees_with_the_whole_file_parse() {
        let good = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        assert_eq!(&good[..4], b"\x7fELF");
        assert_eq!(good[4], 2, "a 64-bit test binary");
        let patched = |at: usize, bytes: &[u8]| {
            let mut copy = good.clone();
            copy[at..at + bytes.len()].copy_from_slice(bytes);
            copy
        };
        let len = good.len();
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("whole", good.clone()),
            ("a third", good[..len / 3].to_vec()),
            ("all but the last byte", good[..len - 1].to_vec()),
            ("header only", good[..64].to_vec()),
            ("half a header", good[..40].to_vec()),
            ("e_machine AArch64", patched(18, &[0xB7, 0])),
            ("e_type EXEC", patched(16, &[2, 0])),
            ("e_type REL", patched(16, &[1, 0])),
            (
                "e_shoff at the end",
                patched(0x28, &(len as u64 - 8).to_le_bytes()),
            ),
            (
                "e_shoff past the end",
                patched(0x28, &(len as u64 * 2).to_le_bytes()),
            ),
            ("e_shentsize wrong", patched(0x3A, &[10, 0])),
            ("e_shnum extended, no section 0", {
                let mut copy = patched(0x3C, &[0, 0]);
                copy[0x28..0x30].copy_from_slice(&(len as u64 + 1).to_le_bytes());
                copy
            }),
            (
                "e_phoff past the end",
                patched(0x20, &(len as u64).to_le_bytes()),
            ),
            ("e_phentsize wrong", patched(0x36, &[10, 0])),
            ("no sections, segments cut", {
                let mut copy = good[..32 * 1024].to_vec();
                copy[0x28..0x30].fill(0);
                copy[0x3C..0x40].fill(0);
                copy
            }),
            ("bad version", patched(6, &[2])),
        ];
        let path = std::env::temp_dir().join(format!("xcsh-preflight-{}.so", std::process::id()));
        for (name, bytes) in cases {
            std::fs::write(&path, &bytes).unwrap();
            let open = || File::open(&path).unwrap();
            assert_eq!(check(&open()), whole_file_check(&path), "{name}");
            if name == "no sections, segments cut" {
                assert!(matches!(check(&open()), Err(LoadError::Truncated { .. })));
            }
        }
        std::fs::remove_file(&path).unwrap();
    }
}
