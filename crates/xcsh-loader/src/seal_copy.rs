//! The sealed copy a pack is mapped from (Linux): an in-memory file with
//! the pack's bytes that nothing can write once sealed, named for the pack
//! file's path so `/proc/PID/maps` tells the copies apart.

use std::fs::File;
use std::path::Path;

/// A sealed in-memory copy of `file`'s contents, named for `path` (see
/// [`memfd_name`]).
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

/// `xcsh-pack:` and `path`, its end kept when that is over the kernel's
/// limit (249 bytes, cut at a character boundary, `…` in front): what
/// `/proc/PID/maps` and a crash's backtrace show for the mapped copy, so
/// each pack's copy is told apart from the others (and a pack that tags its
/// tools with the file it was mapped from, as the benchmark pack does,
/// still gets one tag per file).
fn memfd_name(path: &Path) -> String {
    const LIMIT: usize = 249;
    const PREFIX: &str = "xcsh-pack:";
    let path = path.to_string_lossy();
    if PREFIX.len() + path.len() <= LIMIT {
        return format!("{PREFIX}{path}");
    }
    let mut start = path.len() - (LIMIT - PREFIX.len() - '…'.len_utf8());
    while !path.is_char_boundary(start) {
        start += 1;
    }
    format!("{PREFIX}…{}", &path[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_is_named_for_the_files_path_and_the_name_fits_the_kernels_limit() {
        assert_eq!(
            memfd_name(Path::new("/packs/libbatch_rename.so")),
            "xcsh-pack:/packs/libbatch_rename.so"
        );
        let long = memfd_name(Path::new(&format!("/p/{}/libx.so", "é".repeat(200))));
        assert!(
            long.len() <= 249 && long.starts_with("xcsh-pack:…é") && long.ends_with("é/libx.so"),
            "{long}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("libnamed.so");
        std::fs::write(&path, b"bytes").unwrap();
        let copy = seal_copy(&File::open(&path).unwrap(), &path).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&copy);
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
        assert_eq!(
            link,
            Path::new(&format!("/memfd:xcsh-pack:{} (deleted)", path.display()))
        );
    }
}
