//! The working directory's files reached by descriptor from its root,
//! never through a symbolic link: what undo reads and writes.
//!
//! A snapshot never holds a path that goes through a link (git records a
//! link as a link and does not look behind it), so any link on the way to
//! a path undo restores was put there after the snapshot, possibly by a
//! pack to lead the write outside the project. Each directory on the way
//! is opened from the one before with `O_NOFOLLOW` (on Linux in one
//! `openat2` call with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` where the
//! kernel has it), and the file is then read, written, created or removed
//! through its directory's descriptor: a link swapped in after the check
//! cannot redirect the write either. This is the same confinement
//! `xcsh-safe-fs` gives packs (`confine`), made strict: that one resolves
//! links that stay inside the working directory, undo accepts none.

use std::ffi::OsStr;
use std::io::{self, Read as _, Write as _};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::file_state::{EXECUTABLE, LINK, PLAIN};
use crate::{FileMeta, FileState, names};

/// Why a path could not be reached.
#[derive(Debug)]
pub(crate) enum Blocked {
    /// This directory on the way (relative, in the log's text form of a
    /// path) is a symbolic link.
    Link(String),
    /// The path could not be read or written.
    Io(PathBuf, io::Error),
}

/// The working directory, open.
#[derive(Debug)]
pub(crate) struct Root {
    dir: OwnedFd,
    path: PathBuf,
}

/// A directory of the working directory, open, and the name of the file in
/// it a path ends with.
pub(crate) struct Parent {
    dir: OwnedFd,
    name: PathBuf,
    full: PathBuf,
}

impl Root {
    /// Opens the working directory `path` (canonical).
    pub(crate) fn open(path: &Path) -> io::Result<Self> {
        let dir = rustix::fs::open(path, dir_flags(), Mode::empty())?;
        Ok(Self {
            dir,
            path: path.to_owned(),
        })
    }

    /// The directory holding `rel` (its exact bytes) and its last name;
    /// `Ok(None)` when a directory on the way is missing (and not
    /// `create`d).
    pub(crate) fn parent(&self, rel: &Path, create: bool) -> Result<Option<Parent>, Blocked> {
        let path = rel;
        let full = self.path.join(path);
        let io = |error: io::Error| Blocked::Io(full.clone(), error);
        let name = path
            .file_name()
            .ok_or_else(|| io(io::Error::other("not a file's path")))?
            .to_owned();
        let dirs = path.parent().unwrap_or(Path::new(""));
        let Some(dir) = self.dir_at(dirs, create).map_err(|blocked| match blocked {
            Blocked::Io(_, error) => io(error),
            link => link,
        })?
        else {
            return Ok(None);
        };
        Ok(Some(Parent {
            dir,
            name: name.into(),
            full,
        }))
    }

    /// The directory `rel` (relative, `""` for the root) opened without
    /// following a link; `Ok(None)` when missing and not `create`.
    fn dir_at(&self, rel: &Path, create: bool) -> Result<Option<OwnedFd>, Blocked> {
        if rel.as_os_str().is_empty() {
            let dir = rustix::fs::openat(&self.dir, ".", dir_flags(), Mode::empty())
                .map_err(|error| Blocked::Io(self.path.clone(), error.into()))?;
            return Ok(Some(dir));
        }
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::ResolveFlags;
            let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
            // Missing (maybe to be created) or a link on the way (named
            // by the walk below); an old kernel has no openat2 (ENOSYS),
            // a filter may refuse it (EPERM): the walk then.
            if let Ok(dir) =
                rustix::fs::openat2(&self.dir, rel, dir_flags(), Mode::empty(), resolve)
            {
                return Ok(Some(dir));
            }
        }
        self.walk(rel, create)
    }

    /// One directory at a time, each opened from the one before with
    /// `O_NOFOLLOW`.
    fn walk(&self, rel: &Path, create: bool) -> Result<Option<OwnedFd>, Blocked> {
        let mut dir = rustix::fs::openat(&self.dir, ".", dir_flags(), Mode::empty())
            .map_err(|error| Blocked::Io(self.path.clone(), error.into()))?;
        let mut so_far = PathBuf::new();
        for name in rel.iter() {
            so_far.push(name);
            let io = |error: Errno| Blocked::Io(self.path.join(&so_far), error.into());
            let next = match rustix::fs::openat(&dir, name, dir_flags(), Mode::empty()) {
                Ok(next) => next,
                Err(Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&dir, name, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(error) => return Err(io(error)),
                    }
                    match rustix::fs::openat(&dir, name, dir_flags(), Mode::empty()) {
                        Ok(next) => next,
                        Err(Errno::LOOP | Errno::NOTDIR) if is_link(&dir, name) => {
                            return Err(Blocked::Link(slashed(&so_far)));
                        }
                        Err(error) => return Err(io(error)),
                    }
                }
                Err(Errno::NOENT) => return Ok(None),
                Err(Errno::LOOP | Errno::NOTDIR) if is_link(&dir, name) => {
                    return Err(Blocked::Link(slashed(&so_far)));
                }
                Err(error) => return Err(io(error)),
            };
            dir = next;
        }
        Ok(Some(dir))
    }

    /// Removes the directories above `rel` left empty, up to the root.
    pub(crate) fn prune_empty_parents(&self, rel: &Path) {
        let mut dir = rel.parent();
        while let Some(current) = dir {
            let (Some(name), Some(above)) = (current.file_name(), current.parent()) else {
                break;
            };
            let Ok(Some(holder)) = self.dir_at(above, false) else {
                break;
            };
            if rustix::fs::unlinkat(&holder, name, AtFlags::REMOVEDIR).is_err() {
                break;
            }
            dir = current.parent();
        }
    }
}

impl Parent {
    fn io(&self) -> impl Fn(Errno) -> Blocked + '_ {
        move |error| Blocked::Io(self.full.clone(), error.into())
    }

    /// What is there now: `None` when nothing is; a directory or a
    /// special file is a state no snapshot has (mode 0).
    pub(crate) fn state(&self) -> Result<Option<FileState>, Blocked> {
        let stat = match rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(Errno::NOENT) => return Ok(None),
            Err(error) => return Err(self.io()(error)),
        };
        let hash = |bytes: &[u8], mode| {
            Oid::hash_object(ObjectType::Blob, bytes)
                .map(|oid| Some(FileState::new(oid, mode)))
                .map_err(|error| Blocked::Io(self.full.clone(), io::Error::other(error)))
        };
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::Symlink => {
                let target =
                    rustix::fs::readlinkat(&self.dir, &self.name, Vec::new()).map_err(self.io())?;
                hash(target.as_bytes(), LINK)
            }
            FileType::RegularFile => {
                let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
                let fd = rustix::fs::openat(&self.dir, &self.name, flags, Mode::empty())
                    .map_err(self.io())?;
                let mut bytes = Vec::new();
                std::fs::File::from(fd)
                    .read_to_end(&mut bytes)
                    .map_err(|error| Blocked::Io(self.full.clone(), error))?;
                let mode = if stat.st_mode & 0o100 != 0 {
                    EXECUTABLE
                } else {
                    PLAIN
                };
                hash(&bytes, mode)
            }
            _ => Ok(Some(FileState::new(Oid::ZERO_SHA1, 0))),
        }
    }

    /// Removes what is there (a directory with everything in it), if
    /// anything is.
    pub(crate) fn remove(&self) -> Result<(), Blocked> {
        match rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW) {
            Err(Errno::NOENT) => Ok(()),
            Err(error) => Err(self.io()(error)),
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Directory => {
                remove_tree(&self.dir, &self.name).map_err(self.io())
            }
            Ok(_) => {
                rustix::fs::unlinkat(&self.dir, &self.name, AtFlags::empty()).map_err(self.io())
            }
        }
    }

    /// Makes it a symbolic link to `target`.
    pub(crate) fn link(&self, target: &[u8]) -> Result<(), Blocked> {
        self.remove()?;
        rustix::fs::symlinkat(OsStr::from_bytes(target), &self.dir, &self.name).map_err(self.io())
    }

    /// Writes `bytes` there, with `meta`'s mode, owner, group and
    /// modification time where given (the owner and group where this user
    /// may set them), or else mode 755 when `executable`, 644 when not.
    pub(crate) fn write(
        &self,
        bytes: &[u8],
        executable: bool,
        meta: Option<&FileMeta>,
    ) -> Result<(), Blocked> {
        // A regular file is written over in place (unlinking first costs
        // milliseconds a file on some file systems); anything else there
        // (a link, a directory) is removed first.
        let regular = rustix::fs::statat(&self.dir, &self.name, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile);
        let base = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = if regular {
            rustix::fs::openat(&self.dir, &self.name, base | OFlags::TRUNC, Mode::empty())
        } else {
            self.remove()?;
            let create = base | OFlags::CREATE | OFlags::EXCL;
            rustix::fs::openat(&self.dir, &self.name, create, Mode::from_raw_mode(0o600))
        }
        .map_err(self.io())?;
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)
            .map_err(|error| Blocked::Io(self.full.clone(), error))?;
        set_meta(file.as_fd(), executable, meta).map_err(self.io())
    }
}

/// Sets the mode (after the owner: a change of owner clears set-user-ID
/// bits), the owner and group where permitted, and the modification time.
fn set_meta(
    fd: std::os::fd::BorrowedFd<'_>,
    executable: bool,
    meta: Option<&FileMeta>,
) -> Result<(), Errno> {
    let Some(meta) = meta else {
        let mode = if executable { 0o755 } else { 0o644 };
        return rustix::fs::fchmod(fd, Mode::from_raw_mode(mode));
    };
    let now = rustix::fs::fstat(fd)?;
    if now.st_uid != meta.uid || now.st_gid != meta.gid {
        let owner = (now.st_uid != meta.uid).then(|| rustix::fs::Uid::from_raw(meta.uid));
        let group = (now.st_gid != meta.gid).then(|| rustix::fs::Gid::from_raw(meta.gid));
        match rustix::fs::fchown(fd, owner, group) {
            // Only root may give a file away: it stays this user's.
            Ok(()) | Err(Errno::PERM) => {}
            Err(error) => return Err(error),
        }
    }
    rustix::fs::fchmod(fd, Mode::from_raw_mode(meta.mode))?;
    let times = rustix::fs::Timestamps {
        last_access: rustix::fs::Timespec {
            tv_sec: 0,
            tv_nsec: rustix::fs::UTIME_OMIT,
        },
        last_modification: rustix::fs::Timespec {
            tv_sec: meta.mtime,
            tv_nsec: meta.mtime_nsec.into(),
        },
    };
    rustix::fs::futimens(fd, &times)
}

/// Removes directory `name` of `dir` and everything in it, never following
/// a link.
fn remove_tree(dir: &OwnedFd, name: &Path) -> Result<(), Errno> {
    let inner = rustix::fs::openat(dir, name, dir_flags(), Mode::empty())?;
    let mut entries = rustix::fs::Dir::read_from(&inner)?;
    let mut children = Vec::new();
    while let Some(entry) = entries.read() {
        let entry = entry?;
        let child = entry.file_name().to_bytes();
        if child != b"." && child != b".." {
            children.push((PathBuf::from(OsStr::from_bytes(child)), entry.file_type()));
        }
    }
    for (child, kind) in children {
        let kind = if kind == FileType::Unknown {
            FileType::from_raw_mode(
                rustix::fs::statat(&inner, &child, AtFlags::SYMLINK_NOFOLLOW)?.st_mode,
            )
        } else {
            kind
        };
        if kind == FileType::Directory {
            remove_tree(&inner, &child)?;
        } else {
            rustix::fs::unlinkat(&inner, &child, AtFlags::empty())?;
        }
    }
    rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)
}

fn is_link(dir: &OwnedFd, name: &OsStr) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink)
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// `path` in the log's text form, as the paths it is reported with.
fn slashed(path: &Path) -> String {
    names::stored(path)
}
