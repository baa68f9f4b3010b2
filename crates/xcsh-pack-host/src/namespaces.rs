//! xcsh's own namespace sandbox (no system package needed): what
//! `xcsh pack-host --namespaces PLAN` does before anything else, in a
//! process the agent has just started (one thread, nothing of the pack
//! loaded yet), never between `fork` and `exec` in the agent.
//!
//! Three processes, as bubblewrap makes them:
//!
//! 1. this one (the agent's child, outside the new PID namespace): it
//!    dies with the agent (`PR_SET_PDEATHSIG`), enters new user, mount,
//!    PID, IPC, UTS and cgroup namespaces (and a network namespace with
//!    only its loopback, unless the plan keeps the network), maps its own
//!    user and group onto themselves, and then only waits for
//!    2. its child, pid 1 of the new PID namespace: it dies with the
//!    first, sets up the plan's mounts ([`mounts`]), `/proc` of its PID
//!    namespace included, and enters the new root; then it reaps and waits
//!    for
//!    3. pid 2, in a session of its own (`setsid`: no controlling
//!    terminal), with every capability of the user namespace dropped,
//!    which returns to serve the pack: the usual Landlock and seccomp
//!    sandbox follows. (Running `xcsh pack-host` again there instead cost
//!    a third start of the binary: 1.38× bubblewrap's start-up in a
//!    debug build.)
//!
//! When pid 2 ends, pid 1 ends with its status (a signal N as status
//! 128 + N, as bubblewrap reports it) and the kernel kills whatever else
//! runs in the namespace; the first process passes the status on. When
//! the agent kills the first process, the other two die with it.
//!
//! Descriptors are left as they are: the protocol pipes and the sealed
//! library at [`PACK_FD`](xcsh_isolate_protocol::PACK_FD) reach the
//! pack's process at the same numbers.

mod mounts;

use std::os::fd::{AsFd as _, OwnedFd};

use nix::errno::Errno;
use nix::sched::{CloneFlags, unshare};
use nix::sys::signal::Signal;
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{ForkResult, Gid, Pid, Uid, fork};
pub use xcsh_isolate_protocol::NAMESPACES_FAILED;
use xcsh_isolate_protocol::NamespacePlan;

/// Why the namespaces could not be set up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NamespaceError {
    /// The plan is not one this xcsh reads.
    #[error("the namespace plan is not valid: {0}")]
    Plan(#[from] serde_json::Error),
    /// Another thread runs already: forking here would not be safe.
    #[error("the process runs {0} threads; namespaces are set up from one")]
    Threads(usize),
    /// A step failed, with what the kernel said.
    #[error("{step}: {errno}")]
    Step {
        /// What was being done.
        step: String,
        /// The kernel's answer.
        errno: String,
    },
}

impl NamespaceError {
    pub(crate) fn step(step: impl Into<String>, errno: impl std::fmt::Display) -> Self {
        Self::Step {
            step: step.into(),
            errno: errno.to_string(),
        }
    }
}

/// Sets up the namespaces `plan` (JSON) describes and returns in pid 2
/// inside them, the pack's process (the other two processes never
/// return). On failure nothing has run inside: the line the caller writes
/// of the error starts with [`NAMESPACES_FAILED`], and the agent then
/// starts the pack without namespaces.
///
/// # Errors
///
/// The plan is not valid, or the kernel refused a step (user namespaces
/// disabled, a mount refused).
pub fn enter(plan: &str) -> Result<(), NamespaceError> {
    let plan: NamespacePlan = serde_json::from_str(plan)?;
    // Nothing the agent inherited stays open in the namespace's first
    // process either (the pack's process closes its own copies again).
    crate::detach::close_inherited()
        .map_err(|e| NamespaceError::step("cannot close what it inherited", e))?;
    let threads = std::fs::read_dir("/proc/self/task").map_or(1, Iterator::count);
    if threads != 1 {
        return Err(NamespaceError::Threads(threads));
    }
    die_with_parent(Some(plan.agent))?;
    let (uid, gid) = (Uid::current(), Gid::current());
    let mut flags = CloneFlags::CLONE_NEWUSER
        | CloneFlags::CLONE_NEWNS
        | CloneFlags::CLONE_NEWPID
        | CloneFlags::CLONE_NEWIPC
        | CloneFlags::CLONE_NEWUTS;
    if !plan.network {
        flags |= CloneFlags::CLONE_NEWNET;
    }
    // A cgroup namespace where the kernel has them.
    unshare(flags | CloneFlags::CLONE_NEWCGROUP)
        .or_else(|_| unshare(flags))
        .map_err(|e| NamespaceError::step("cannot create the namespaces", e))?;
    write("/proc/self/setgroups", "deny")?;
    write("/proc/self/uid_map", &format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", &format!("{gid} {gid} 1"))?;
    if !plan.network {
        mounts::loopback_up()?;
    }
    let (alive_read, alive_write) =
        nix::unistd::pipe().map_err(|e| NamespaceError::step("cannot make a pipe", e))?;
    // SAFETY: this process runs one thread (checked above), so the child
    // is a complete copy; it makes system calls and allocates, as any
    // single-threaded program may.
    match unsafe { fork() }.map_err(|e| NamespaceError::step("cannot fork", e))? {
        ForkResult::Parent { child } => {
            drop(alive_read);
            let status = wait_for(child);
            drop(alive_write);
            std::process::exit(status)
        }
        ForkResult::Child => {
            drop(alive_write);
            match first_in_namespace(&plan, alive_read) {
                // Pid 2: the pack's process.
                Ok(None) => Ok(()),
                Ok(Some(status)) => std::process::exit(status),
                Err(error) => {
                    eprintln!("{NAMESPACES_FAILED}{error}");
                    std::process::exit(1)
                }
            }
        }
    }
}

/// Pid 1 of the new PID namespace: dies with the first process, sets up
/// the mounts, starts pid 2 and waits for it (its status); `None` in pid 2.
fn first_in_namespace(plan: &NamespacePlan, alive: OwnedFd) -> Result<Option<i32>, NamespaceError> {
    die_with_parent(None)?;
    // The first process holds the pipe's other end while it lives: if
    // the pipe has already ended, it died before the death signal was set.
    let mut fds = [nix::poll::PollFd::new(
        alive.as_fd(),
        nix::poll::PollFlags::POLLIN,
    )];
    if nix::poll::poll(&mut fds, nix::poll::PollTimeout::ZERO).unwrap_or(1) != 0 {
        std::process::exit(1);
    }
    drop(alive);
    mounts::set_up(plan)?;
    // SAFETY: still one thread (a fork's child has only the thread that
    // forked).
    match unsafe { fork() }.map_err(|e| NamespaceError::step("cannot fork", e))? {
        ForkResult::Parent { child } => Ok(Some(reap_until(child))),
        ForkResult::Child => {
            become_the_pack_s_process()?;
            Ok(None)
        }
    }
}

/// Asks for SIGKILL when the parent ends; with `agent`, checks the
/// parent is still that process (it may have ended before).
fn die_with_parent(agent: Option<u32>) -> Result<(), NamespaceError> {
    nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)
        .map_err(|e| NamespaceError::step("cannot ask to die with the agent", e))?;
    if let Some(agent) = agent
        && nix::unistd::getppid().as_raw() != i32::try_from(agent).unwrap_or(-1)
    {
        std::process::exit(1);
    }
    Ok(())
}

fn write(path: &str, text: &str) -> Result<(), NamespaceError> {
    std::fs::write(path, text).map_err(|e| NamespaceError::step(format!("cannot write {path}"), e))
}

/// Waits for `child`: its exit status, or 128 + N for a signal N.
fn wait_for(child: Pid) -> i32 {
    loop {
        match waitpid(child, None) {
            Ok(WaitStatus::Exited(_, code)) => return code,
            Ok(WaitStatus::Signaled(_, signal, _)) => return 128 + signal as i32,
            Ok(_) | Err(Errno::EINTR) => {}
            Err(_) => return 1,
        }
    }
}

/// As pid 1: reaps every process that ends (orphans come here) until
/// `main` does, and returns its status as [`wait_for`] does.
fn reap_until(main: Pid) -> i32 {
    loop {
        match waitpid(None::<Pid>, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == main => return code,
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == main => return 128 + signal as i32,
            Ok(_) | Err(Errno::EINTR) => {}
            Err(_) => return 1,
        }
    }
}

/// In pid 2: a session of its own (no controlling terminal), and none of
/// the user namespace's capabilities left (as an `exec` by a user who is
/// not root inside would leave none).
fn become_the_pack_s_process() -> Result<(), NamespaceError> {
    nix::unistd::setsid().map_err(|e| NamespaceError::step("cannot start a session", e))?;
    /// `_LINUX_CAPABILITY_VERSION_3`.
    const VERSION_3: u32 = 0x2008_0522;
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header {
        version: VERSION_3,
        pid: 0,
    };
    let none = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: `header` and `none` are the `cap_user_header_t` and the two
    // `cap_user_data_t` of version 3, alive for the call, which reads them.
    let result = unsafe { libc::syscall(libc::SYS_capset, &raw const header, none.as_ptr()) };
    if result != 0 {
        return Err(NamespaceError::step(
            "cannot drop the namespace's capabilities",
            std::io::Error::last_os_error(),
        ));
    }
    // SAFETY: a plain `prctl` with integer arguments.
    let result = unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        )
    };
    if result != 0 {
        return Err(NamespaceError::step(
            "cannot drop the ambient capabilities",
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}
