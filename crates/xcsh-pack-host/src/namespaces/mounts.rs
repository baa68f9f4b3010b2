//! The view of the files inside the namespaces, set up by pid 1 of the
//! new PID namespace with the user namespace's capabilities, as
//! bubblewrap sets up its own: a private mount tree; a `tmpfs` made the
//! root, with the old root beneath it; the plan's mounts made in a
//! `newroot` directory there, from the old root (each path the same
//! inside and outside); the old root detached, and `newroot` made the
//! root.
//!
//! Read-only means with everything mounted beneath (`mount_setattr` with
//! `AT_RECURSIVE`, Linux 5.12): a read-only bind of `/` leaves no
//! writable file system under it, whatever the machine mounts there.

use std::ffi::CStr;
use std::os::fd::AsRawFd as _;
use std::path::{Path, PathBuf};

use nix::mount::{MntFlags, MsFlags, mount, umount2};
use xcsh_isolate_protocol::{MountStep, NamespacePlan};

use super::NamespaceError;

/// Where the old root is put beneath the temporary root.
const OLD: &str = "/oldroot";
/// Where the new root is built beneath the temporary root.
const NEW: &str = "/newroot";

/// The devices a minimal `/dev` has, bound from the machine's.
const DEVICES: [&str; 6] = ["null", "zero", "full", "random", "urandom", "tty"];

/// Sets up `plan`'s mounts and enters the new root, in `plan.cwd`.
///
/// # Errors
///
/// The kernel refused a step.
pub(super) fn set_up(plan: &NamespacePlan) -> Result<(), NamespaceError> {
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| NamespaceError::step("cannot make the mounts private", e))?;
    // A base no other mount of the plan needs: it is hidden only inside.
    let base = "/tmp";
    mount(
        Some("tmpfs"),
        base,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("mode=0755"),
    )
    .map_err(|e| NamespaceError::step("cannot mount the temporary root", e))?;
    for dir in [OLD, NEW] {
        std::fs::create_dir(format!("{base}{dir}"))
            .map_err(|e| NamespaceError::step(format!("cannot make {dir}"), e))?;
    }
    nix::unistd::chdir(base)
        .map_err(|e| NamespaceError::step("cannot enter the temporary root", e))?;
    nix::unistd::pivot_root(".", &OLD[1..])
        .map_err(|e| NamespaceError::step("cannot pivot to the temporary root", e))?;
    nix::unistd::chdir("/")
        .map_err(|e| NamespaceError::step("cannot enter the temporary root", e))?;
    for item in &plan.mounts {
        apply(item)?;
    }
    // Detached privately: no unmount reaches the agent's mounts.
    mount(
        None::<&str>,
        OLD,
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| NamespaceError::step("cannot make the old root private", e))?;
    umount2(OLD, MntFlags::MNT_DETACH)
        .map_err(|e| NamespaceError::step("cannot detach the old root", e))?;
    // The new root is read-only: no directory in it to put the
    // temporary root under. Pivoted onto itself, the temporary root ends
    // up beneath it and is detached from there.
    let temporary = std::fs::File::open("/")
        .map_err(|e| NamespaceError::step("cannot open the temporary root", e))?;
    nix::unistd::chdir(NEW).map_err(|e| NamespaceError::step("cannot enter the new root", e))?;
    nix::unistd::pivot_root(".", ".")
        .map_err(|e| NamespaceError::step("cannot pivot to the new root", e))?;
    nix::unistd::fchdir(&temporary)
        .map_err(|e| NamespaceError::step("cannot leave the new root", e))?;
    umount2(".", MntFlags::MNT_DETACH)
        .map_err(|e| NamespaceError::step("cannot detach the temporary root", e))?;
    drop(temporary);
    nix::unistd::chdir("/").map_err(|e| NamespaceError::step("cannot enter the new root", e))?;
    nix::unistd::chdir(&plan.cwd)
        .map_err(|e| NamespaceError::step(format!("cannot enter {}", plan.cwd.display()), e))?;
    Ok(())
}

/// `path` beneath `root` (`/newroot/work` for `/work`).
fn under(root: &str, path: &Path) -> PathBuf {
    Path::new(root).join(path.strip_prefix("/").unwrap_or(path))
}

fn apply(item: &MountStep) -> Result<(), NamespaceError> {
    match item {
        MountStep::Root { writable } => {
            bind(Path::new(OLD), Path::new(NEW))?;
            if !writable {
                read_only(Path::new(NEW))?;
            }
        }
        MountStep::Dev(path) => {
            let dev = under(NEW, path);
            tmpfs(&dev)?;
            for name in DEVICES {
                let node = dev.join(name);
                std::fs::File::create(&node).map_err(|e| {
                    NamespaceError::step(format!("cannot make {}", node.display()), e)
                })?;
                bind(&Path::new(OLD).join("dev").join(name), &node)?;
            }
            let links = [
                ("fd", "/proc/self/fd"),
                ("stdin", "/proc/self/fd/0"),
                ("stdout", "/proc/self/fd/1"),
                ("stderr", "/proc/self/fd/2"),
                ("ptmx", "pts/ptmx"),
            ];
            for (name, target) in links {
                std::os::unix::fs::symlink(target, dev.join(name))
                    .map_err(|e| NamespaceError::step(format!("cannot make {name} in /dev"), e))?;
            }
            for name in ["shm", "pts"] {
                std::fs::create_dir(dev.join(name))
                    .map_err(|e| NamespaceError::step(format!("cannot make {name} in /dev"), e))?;
            }
            // Terminals of its own only, where the kernel lets it.
            let _ = mount(
                Some("devpts"),
                &dev.join("pts"),
                Some("devpts"),
                MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC,
                Some("newinstance,ptmxmode=0666,mode=620"),
            );
        }
        MountStep::Proc(path) => {
            let proc = under(NEW, path);
            mount(
                Some("proc"),
                &proc,
                Some("proc"),
                MsFlags::MS_NOSUID | MsFlags::MS_NOEXEC | MsFlags::MS_NODEV,
                None::<&str>,
            )
            .map_err(|e| NamespaceError::step(format!("cannot mount {}", path.display()), e))?;
            // What the kernel lets any process change there stays as it is.
            for name in ["sys", "sysrq-trigger", "irq", "bus"] {
                let inner = proc.join(name);
                if inner.exists() {
                    bind(&inner, &inner)?;
                    read_only(&inner)?;
                }
            }
        }
        MountStep::Tmpfs(path) => tmpfs(&under(NEW, path))?,
        MountStep::Bind {
            path,
            read_only: ro,
            if_exists,
        } => {
            let source = under(OLD, path);
            let Ok(meta) = std::fs::metadata(&source) else {
                if *if_exists {
                    return Ok(());
                }
                return Err(NamespaceError::step(
                    format!("cannot bind {}", path.display()),
                    "it does not exist",
                ));
            };
            let target = under(NEW, path);
            make_point(&target, meta.is_dir())?;
            bind(&source, &target)?;
            if *ro {
                read_only(&target)?;
            }
        }
    }
    Ok(())
}

/// A directory (or, for a file, an empty file) at `target` if missing.
fn make_point(target: &Path, dir: bool) -> Result<(), NamespaceError> {
    if std::fs::symlink_metadata(target).is_ok() {
        return Ok(());
    }
    let fail =
        |e: std::io::Error| NamespaceError::step(format!("cannot make {}", target.display()), e);
    if dir {
        std::fs::create_dir_all(target).map_err(fail)
    } else {
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(fail)?;
        }
        std::fs::File::create(target).map(drop).map_err(fail)
    }
}

fn tmpfs(path: &Path) -> Result<(), NamespaceError> {
    make_point(path, true)?;
    mount(
        Some("tmpfs"),
        path,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("mode=0755"),
    )
    .map_err(|e| NamespaceError::step(format!("cannot mount a tmpfs at {}", path.display()), e))
}

fn bind(source: &Path, target: &Path) -> Result<(), NamespaceError> {
    mount(
        Some(source),
        target,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
    .map_err(|e| NamespaceError::step(format!("cannot bind {}", target.display()), e))
}

/// `struct mount_attr` of `mount_setattr(2)` (not in `libc`).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// `MOUNT_ATTR_RDONLY`.
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// Makes the mount at `path`, and every mount beneath it, read-only.
fn read_only(path: &Path) -> Result<(), NamespaceError> {
    let fail = |e: std::io::Error| {
        NamespaceError::step(format!("cannot make {} read-only", path.display()), e)
    };
    let c_path = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()))
        .map_err(|e| fail(e.into()))?;
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let c_path: &CStr = &c_path;
    // SAFETY: `c_path` is a NUL-terminated string and `attr` a
    // `struct mount_attr` of the size given, both alive for the call,
    // which only reads them.
    let result = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            c_path.as_ptr(),
            libc::AT_RECURSIVE | libc::AT_SYMLINK_NOFOLLOW,
            &raw const attr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(fail(std::io::Error::last_os_error()))
    }
}

/// Brings up the loopback of a new network namespace (it starts down):
/// the pack may talk to itself, and to nothing else.
pub(super) fn loopback_up() -> Result<(), NamespaceError> {
    let fail = |e: std::io::Error| NamespaceError::step("cannot bring up the loopback", e);
    let socket = nix::sys::socket::socket(
        nix::sys::socket::AddressFamily::Inet,
        nix::sys::socket::SockType::Datagram,
        nix::sys::socket::SockFlag::SOCK_CLOEXEC,
        None,
    )
    .map_err(|e| fail(e.into()))?;
    // SAFETY: `ifreq` is plain data; all zeroes is a valid value.
    let mut request: libc::ifreq = unsafe { std::mem::zeroed() };
    for (to, from) in request.ifr_name.iter_mut().zip(b"lo\0") {
        *to = *from as libc::c_char;
    }
    // SAFETY: `request` is a valid `ifreq` naming `lo`, alive for the
    // call; SIOCGIFFLAGS fills its flags.
    if unsafe { libc::ioctl(socket.as_raw_fd(), libc::SIOCGIFFLAGS, &raw mut request) } != 0 {
        return Err(fail(std::io::Error::last_os_error()));
    }
    // SAFETY: SIOCGIFFLAGS set the flags member of the union.
    unsafe {
        request.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
    }
    // SAFETY: as above; SIOCSIFFLAGS reads the flags.
    if unsafe { libc::ioctl(socket.as_raw_fd(), libc::SIOCSIFFLAGS, &raw const request) } != 0 {
        return Err(fail(std::io::Error::last_os_error()));
    }
    Ok(())
}
