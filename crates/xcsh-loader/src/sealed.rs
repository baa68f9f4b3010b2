//! A pack handed over to another process: the agent opens the file once,
//! copies it into a sealed memory file, checks that copy against its trust
//! policy, and the process it starts maps exactly that copy. Nothing is
//! reopened by path afterwards, so a file swapped, renamed or rewritten in
//! place after the check is never the one that runs, however often the
//! process is started again.
//!
//! On Linux the copy is a `memfd` sealed against writing, growing and
//! shrinking (and against new seals being removed); elsewhere the checked
//! descriptor itself is handed over.

use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

use xcsh_core::Session;

use crate::pack_file::PackFile;
use crate::report::{LoadFailure, LoadReport};
use crate::{HostBinding, LoadError, PackLibrary, TrustPolicy};

/// A checked pack library held as sealed bytes, ready to hand to a child
/// process ([`descriptor`](Self::descriptor)) or to map there
/// ([`load`](Self::load)).
#[derive(Debug)]
pub struct SealedPack {
    file: PackFile,
}

impl SealedPack {
    /// Opens the pack at `path` once, seals a copy of its contents, and
    /// checks `trust` against the original's owner and mode and the copy's
    /// bytes (so a pinned hash is the hash of what will be mapped).
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`] (the copy could not be made) or any of
    /// [`TrustPolicy`]'s refusals.
    pub fn open(path: &Path, trust: &TrustPolicy) -> Result<Self, LoadError> {
        let file = PackFile::open(path)?.sealed()?;
        trust.check_file(&file)?;
        Ok(Self { file })
    }

    /// A pack handed over as the inherited descriptor `descriptor`, known
    /// to the agent as `path` (its canonical path, for messages only: it
    /// is never opened).
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`]: the descriptor is not a regular file, or
    /// (on Linux) not sealed against change.
    pub fn from_descriptor(path: PathBuf, descriptor: OwnedFd) -> Result<Self, LoadError> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::SealFlags;
            let needed = SealFlags::WRITE | SealFlags::GROW | SealFlags::SHRINK | SealFlags::SEAL;
            let seals = rustix::fs::fcntl_get_seals(&descriptor).map_err(|e| {
                LoadError::Unreadable(format!("the handed-over pack is not a sealed copy: {e}"))
            })?;
            if !seals.contains(needed) {
                return Err(LoadError::Unreadable(
                    "the handed-over pack is not sealed against change".to_owned(),
                ));
            }
        }
        let file = PackFile::from_open(path, File::from(descriptor))?;
        if !file.metadata().is_file() {
            return Err(LoadError::NotAFile);
        }
        Ok(Self { file })
    }

    /// The pack handed over to this process at descriptor `number` (see
    /// [`from_descriptor`](Self::from_descriptor)), taken once: from here
    /// on it is closed on exec, so nothing this process starts inherits it.
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`]: no descriptor is open there, or it is not
    /// a sealed copy.
    #[allow(unsafe_code)]
    pub fn inherited(path: PathBuf, number: i32) -> Result<Self, LoadError> {
        use rustix::io::{FdFlags, fcntl_getfd, fcntl_setfd};
        let missing = |e: rustix::io::Errno| {
            LoadError::Unreadable(format!(
                "no pack was handed over at descriptor {number}: {e}"
            ))
        };
        // SAFETY: borrowed only to ask whether the descriptor is open.
        let borrowed = unsafe { BorrowedFd::borrow_raw(number) };
        fcntl_getfd(borrowed).map_err(missing)?;
        // SAFETY: the caller's parent placed the pack at `number` when it
        // started this process, and nothing else in it owns that
        // descriptor: it is taken once, at start-up, before any pack code
        // runs; anything there that is not a sealed copy is refused below.
        let descriptor = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(number) };
        fcntl_setfd(&descriptor, FdFlags::CLOEXEC).map_err(missing)?;
        Self::from_descriptor(path, descriptor)
    }

    /// When the original file was last written (its build), as it was
    /// opened (for a handed-over copy: when the copy was made).
    pub fn built(&self) -> Option<std::time::SystemTime> {
        self.file.built()
    }

    /// The pack's canonical path when it was opened.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The sealed copy's descriptor, to pass to a child process.
    pub fn descriptor(&self) -> BorrowedFd<'_> {
        self.file.file().as_fd()
    }

    /// The lowercase hex SHA-256 of the sealed bytes.
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`].
    pub fn sha256(&self) -> Result<String, LoadError> {
        self.file.sha256()
    }
}

impl SealedPack {
    /// Loads the one pack this holds into `session` (bound to `binding`)
    /// from its sealed bytes: object headers, ABI version, layouts and
    /// factory are checked as [`PackLoader::load`](crate::PackLoader::load) checks them; the trust
    /// policy was checked when the copy was made. Also returns the opened
    /// library when it loaded.
    pub fn load(
        self,
        session: &Session,
        binding: &HostBinding,
    ) -> (LoadReport, Option<&'static PackLibrary>) {
        let path = self.path().to_path_buf();
        let opened = PackLibrary::preflight(self.file)
            .and_then(crate::library::Opening::map)
            .and_then(|mapped| crate::load::open_one(&mapped, binding));
        let mut report = LoadReport::default();
        let mut library = None;
        match opened.and_then(|(opened, tools)| {
            library = Some(opened);
            crate::load::register(session, &path, opened, tools, &mut report)
        }) {
            Ok(pack) => report.loaded.push(pack),
            Err(error) => report.failures.push(LoadFailure { path, error }),
        }
        (report, library)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::io::Write as _;
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn library(dir: &Path, bytes: &[u8]) -> PathBuf {
        let path = dir.join("libpack.so");
        std::fs::write(&path, bytes).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        path
    }

    #[test]
    fn the_copy_keeps_the_checked_bytes_when_the_file_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = library(dir.path(), b"checked bytes");
        let sealed = SealedPack::open(&path, &TrustPolicy::new()).unwrap();
        let mut file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all(b"REWRITTEN").unwrap();
        std::fs::write(&path, b"swapped").unwrap();
        assert_eq!(
            sealed.sha256().unwrap(),
            crate::sha256_hex(b"checked bytes")
        );
    }

    #[test]
    fn a_pin_is_checked_against_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let path = library(dir.path(), b"checked bytes");
        let pinned =
            TrustPolicy::new().with_installed_pin(&path, &crate::sha256_hex(b"other bytes"));
        let refused = SealedPack::open(&path, &pinned).unwrap_err();
        assert!(
            matches!(refused, LoadError::ChangedSinceAdded { .. }),
            "{refused}"
        );
    }

    #[test]
    fn only_a_sealed_descriptor_is_taken_from_the_agent() {
        let dir = tempfile::tempdir().unwrap();
        let path = library(dir.path(), b"bytes");
        let plain = OwnedFd::from(File::open(&path).unwrap());
        let refused = SealedPack::from_descriptor(path.clone(), plain).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "cannot read file: the handed-over pack is not a sealed copy: Invalid argument (os error 22)"
        );
        let sealed = SealedPack::open(&path, &TrustPolicy::new()).unwrap();
        let handed = sealed.descriptor().try_clone_to_owned().unwrap();
        let taken = SealedPack::from_descriptor(path, handed).unwrap();
        assert_eq!(taken.sha256().unwrap(), crate::sha256_hex(b"bytes"));
    }
}
