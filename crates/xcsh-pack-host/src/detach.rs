//! What the pack's process lets go of first, before it reads a byte of
//! the protocol: every descriptor it inherited but the ones the agent
//! hands it, and the terminal it shares with the agent.
//!
//! A descriptor the agent itself inherited without close-on-exec (a
//! shell's `exec 9>>file` before `xcsh run --isolate`, a socket a parent
//! process left open) would otherwise be open in the pack's process: a
//! file outside the sandbox it could write, a socket it could send on
//! without the `network` grant. So everything from [`PACK_FD`]` + 1` up is
//! closed (`close_range`), whoever started the process (bubblewrap, the
//! built-in namespaces, or none).
//!
//! A controlling terminal shared with the agent (the REPL's) would let a
//! pack hang it up (`vhangup`) or signal its foreground group; the process
//! leaves it: `setsid`, or, where it cannot start a session (it leads its
//! own process group, or already leads a session that namespaces set up),
//! `TIOCNOTTY` on the terminal it still has. Its standard input is
//! `/dev/null` and its output pipes (see `serve`), so it holds no terminal
//! descriptor either; the seccomp filter refuses `vhangup`, `TIOCSCTTY`
//! and typing into a terminal whatever the pack finds.

use xcsh_isolate_protocol::PACK_FD;

/// Closes every descriptor above [`PACK_FD`], then leaves the controlling
/// terminal. Runs before any other thread starts: nothing else holds
/// those descriptors yet.
///
/// # Errors
///
/// The descriptors could not be closed (`close_range` failed and so did
/// closing them one by one), or the terminal could not be left.
pub(crate) fn detach() -> std::io::Result<()> {
    imp::close_inherited()?;
    imp::leave_terminal()
}

/// Closes every descriptor above [`PACK_FD`]: what the built-in
/// namespaces' first processes do before anything else, so that no
/// process in the pack's PID namespace (its first, whose `/proc` entry
/// the pack shares) holds what the agent inherited either.
///
/// # Errors
///
/// As [`detach`]'s first step.
#[cfg(target_os = "linux")]
pub(crate) fn close_inherited() -> std::io::Result<()> {
    imp::close_inherited()
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod imp {
    use std::os::unix::fs::OpenOptionsExt as _;

    use super::PACK_FD;

    /// The first descriptor not handed over on purpose.
    fn first() -> libc::c_uint {
        libc::c_uint::try_from(PACK_FD + 1).unwrap_or(4)
    }

    pub(super) fn close_inherited() -> std::io::Result<()> {
        // SAFETY: `close_range` takes plain numbers. Nothing in this
        // process owns a descriptor above PACK_FD yet (it runs before the
        // protocol pipes are duplicated, before any thread starts), so no
        // owner is left holding a closed one.
        let closed = unsafe { libc::close_range(first(), libc::c_uint::MAX, 0) };
        if closed == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::ENOSYS) {
            return Err(error);
        }
        // Before Linux 5.9: one by one, as /proc lists them.
        let listed: Vec<libc::c_int> = std::fs::read_dir("/proc/self/fd")?
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
            .filter(|&fd: &libc::c_int| fd > PACK_FD)
            .collect();
        for fd in listed {
            // SAFETY: as above; the directory's own descriptor, closed by
            // now, may be listed too, and `close` of it fails harmlessly.
            unsafe { libc::close(fd) };
        }
        Ok(())
    }

    pub(super) fn leave_terminal() -> std::io::Result<()> {
        match nix::unistd::setsid() {
            Ok(_) => return Ok(()),
            // It leads a process group (the agent started it so) or a
            // session already: it keeps its session and drops the
            // terminal below.
            Err(nix::errno::Errno::EPERM) => {}
            Err(errno) => return Err(errno.into()),
        }
        // `/dev/tty` is the controlling terminal, if there is one; opened
        // with `O_NOCTTY`, so that opening it makes nothing ours.
        let tty = match std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOCTTY)
            .open("/dev/tty")
        {
            Ok(tty) => tty,
            // No controlling terminal (ENXIO), or none to reach.
            Err(_) => return Ok(()),
        };
        use std::os::fd::AsRawFd as _;
        // SAFETY: an ioctl without argument on a descriptor this function
        // owns; for a process that leads no session it only detaches this
        // process from the terminal (no signal to anyone).
        let left = unsafe { libc::ioctl(tty.as_raw_fd(), libc::TIOCNOTTY) };
        if left == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn close_inherited() -> std::io::Result<()> {
        Ok(())
    }

    pub(super) fn leave_terminal() -> std::io::Result<()> {
        Ok(())
    }
}
