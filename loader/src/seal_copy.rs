//! The sealed copy a pack is mapped from (Linux): an in-memory file with
//! the pack's bytes that nothing can write once sealed, named for the pack
//! file so `/proc/PID/maps` tells the copies apart.

use std::fs::File;
use std::path::Path;

/// A sealed in-memory copy of `file`'s contents, named for `path`'s file
/// name (see [`memfd_name`]).
pub(crate) fn seal_copy(file: &File, path: &Path) -> std::io::Result<File> {
    use std::io::{Seek as _, SeekFrom};

    use rustix::fs::{MemfdFlags, SealFlags};
    let memfd = rustix::fs::memfd_create(
        memfd_name(path),
        MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING,
    )?;
    let mut copy = File::from(memfd);
    let mut source = file;
    source.seek(SeekFrom::Start(0))?;
    std::io::copy(&mut source, &mut copy)?;
    rustix::fs::fcntl_add_seals(
        &copy,
        SealFlags::WRITE | SealFlags::GROW | SealFlags::SHRINK | SealFlags::SEAL,
    )?;
    copy.seek(SeekFrom::Start(0))?;
    Ok(copy)
}

/// `xcsh-pack:` and the file name of `path`, cut to the kernel's limit
/// (249 bytes) at a character boundary: what `/proc/PID/maps` and a crash's
/// backtrace show for the mapped copy, so each pack's copy is told apart
/// from the others (and a pack that tags its tools with the file it was
/// mapped from, as the benchmark pack does, still gets one tag per file).
fn memfd_name(path: &Path) -> String {
    const LIMIT: usize = 249;
    let mut name = format!(
        "xcsh-pack:{}",
        path.file_name().unwrap_or_default().to_string_lossy()
    );
    if name.len() > LIMIT {
        let mut end = LIMIT;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_named_for_the_file_and_the_name_fits_the_kernels_limit() {
        assert_eq!(
            memfd_name(Path::new("/packs/libbatch_rename.so")),
            "xcsh-pack:libbatch_rename.so"
        );
        let long = memfd_name(Path::new(&format!("/p/lib{}.so", "é".repeat(200))));
        assert!(
            long.len() <= 249 && long.starts_with("xcsh-pack:libé"),
            "{long}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("libnamed.so");
        std::fs::write(&path, b"bytes").unwrap();
        let copy = seal_copy(&File::open(&path).unwrap(), &path).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&copy);
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
        assert_eq!(link, Path::new("/memfd:xcsh-pack:libnamed.so (deleted)"));
    }
}
