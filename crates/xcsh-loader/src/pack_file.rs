//! A pack file opened once: every check reads this open file, and the
//! library is loaded from it, so the file checked is the file loaded.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::LoadError;

/// An open pack file with what `fstat` said about it when it was opened.
#[derive(Debug)]
pub(crate) struct PackFile {
    path: PathBuf,
    file: File,
    metadata: std::fs::Metadata,
}

impl PackFile {
    /// Opens the file at `path` (resolving symbolic links once) for
    /// reading. A FIFO or device is opened without blocking and then
    /// refused.
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`] or [`LoadError::NotAFile`].
    pub(crate) fn open(path: &Path) -> Result<Self, LoadError> {
        let path = std::fs::canonicalize(path).map_err(|e| LoadError::Unreadable(e.to_string()))?;
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            // A FIFO would block the open until a writer came; the path is
            // canonical, so a symbolic link here is a swap in progress.
            let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
            options.custom_flags(flags.bits() as i32);
        }
        let file = options
            .open(&path)
            .map_err(|e| LoadError::Unreadable(e.to_string()))?;
        let metadata = file
            .metadata()
            .map_err(|e| LoadError::Unreadable(e.to_string()))?;
        if !metadata.is_file() {
            return Err(LoadError::NotAFile);
        }
        Ok(Self {
            path,
            file,
            metadata,
        })
    }

    /// This pack file read through a sealed copy of its contents (on
    /// Linux; elsewhere itself), keeping what `fstat` said of the original:
    /// its owner and mode are what the trust rules judge, the copy's bytes
    /// what the hashes pin and what is mapped. Nothing that can write the
    /// file afterwards (in place or by rename) changes the code loaded.
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`]: the copy could not be made.
    pub(crate) fn sealed(self) -> Result<Self, LoadError> {
        #[cfg(target_os = "linux")]
        {
            let file = crate::seal_copy::seal_copy(&self.file, &self.path)
                .map_err(|e| LoadError::Unreadable(format!("cannot make a sealed copy: {e}")))?;
            Ok(Self { file, ..self })
        }
        #[cfg(not(target_os = "linux"))]
        {
            Ok(self)
        }
    }

    /// A pack file that is the open `file` itself, known as `path`.
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`] if it cannot be `fstat`ed.
    pub(crate) fn from_open(path: PathBuf, file: File) -> Result<Self, LoadError> {
        let metadata = file
            .metadata()
            .map_err(|e| LoadError::Unreadable(e.to_string()))?;
        Ok(Self {
            path,
            file,
            metadata,
        })
    }

    /// The canonical path it was opened at.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The open file.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// When the file was last written (its build, for a pack fresh from
    /// `cargo build`), as `fstat` reported it at opening.
    pub(crate) fn built(&self) -> Option<std::time::SystemTime> {
        self.metadata.modified().ok()
    }

    /// What `fstat` reported at opening.
    pub(crate) fn metadata(&self) -> &std::fs::Metadata {
        &self.metadata
    }

    /// The lowercase hex SHA-256 of the open file's contents.
    ///
    /// # Errors
    ///
    /// [`LoadError::Unreadable`].
    pub(crate) fn sha256(&self) -> Result<String, LoadError> {
        let unreadable = |e: std::io::Error| LoadError::Unreadable(e.to_string());
        let mut file = &self.file;
        file.seek(SeekFrom::Start(0)).map_err(unreadable)?;
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 256 * 1024];
        loop {
            let read = file.read(&mut buffer).map_err(unreadable)?;
            if read == 0 {
                break;
            }
            hasher.update(&buffer[..read]);
        }
        Ok(crate::hash::hex(&hasher.finalize()))
    }

    /// The path the OS loader should open so that it maps this very file,
    /// and whether that path is the descriptor itself (Linux's
    /// `/proc/self/fd/N`) or the canonical path, which must then be
    /// [`verified`](Self::verify_loaded) after loading.
    pub(crate) fn load_path(&self) -> (PathBuf, bool) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let by_descriptor = PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()));
            if by_descriptor.exists() {
                return (by_descriptor, true);
            }
        }
        (self.path.clone(), false)
    }

    /// After loading by path: proves the file now at the path is the one
    /// checked (same device, inode, size and modification time).
    ///
    /// # Errors
    ///
    /// [`LoadError::Replaced`].
    pub(crate) fn verify_loaded(&self) -> Result<(), LoadError> {
        let now = std::fs::metadata(&self.path).ok();
        if now.is_some_and(|now| same_file(&now, &self.metadata)) {
            Ok(())
        } else {
            Err(LoadError::Replaced {
                path: self.path.clone(),
            })
        }
    }

    /// Keeps the descriptor open for the rest of the process: the OS loader
    /// may have registered the library under its `/proc/self/fd/N` name,
    /// and a later library opened through the same number must never be
    /// mistaken for it.
    pub(crate) fn keep_open_forever(self) {
        let Self { file, .. } = self;
        std::mem::forget(file);
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino(), a.size(), a.mtime(), a.mtime_nsec())
        == (b.dev(), b.ino(), b.size(), b.mtime(), b.mtime_nsec())
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    (a.len(), a.modified().ok()) == (b.len(), b.modified().ok())
}
