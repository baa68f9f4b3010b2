//! The system-call filter (seccomp-bpf, built with rust-vmm's
//! `seccompiler`) an isolated pack's process installs on itself after
//! Landlock and before it maps the pack: what the namespaces and Landlock
//! leave open.
//!
//! Every system call is allowed except these, which fail with `EPERM`:
//!
//! - always: tracing and reading other processes' memory (`ptrace`,
//!   `process_vm_readv`/`writev`); the kernel key rings (`keyctl`,
//!   `add_key`, `request_key`); new namespaces (`unshare`, `setns`, `clone`
//!   with a `CLONE_NEW*` flag) and mounts, old API and new (`mount`,
//!   `umount2`, `pivot_root`, `chroot`, `fsopen`, `fsconfig`, `fsmount`,
//!   `move_mount`, `open_tree`, `fspick`, `mount_setattr`); the kernel's
//!   own attack surface a pack never needs (`bpf`, `perf_event_open`,
//!   `userfaultfd`, and `io_uring_*`, whose operations never pass through
//!   this filter); what changes the machine (`kexec_*`, modules, `reboot`,
//!   `swapon`/`swapoff`, `acct`, the clock, `syslog`, `iopl`/`ioperm`);
//!   `open_by_handle_at` (opens any file of a mount by handle, past the
//!   paths a sandbox checks); and the terminal ioctls `TIOCSTI` and
//!   `TIOCLINUX` (typing into the user's terminal), `vhangup` and the
//!   ioctls `TIOCSCTTY`, `TIOCVHANGUP` and `TIOCCONS` (taking, hanging up
//!   or redirecting a terminal: the agent's, in a REPL). These are what
//!   Flatpak's and Codex's filters refuse, or what Docker's default
//!   profile keeps from an unprivileged container. Also setting another
//!   process's resource limits (`prlimit64` with a pid other than 0 and
//!   new limits): without namespaces the agent is its parent, a megabyte
//!   of memory kills it, and any process of the same user may set
//!   another's without privilege, which Landlock does not cover; and
//!   setting another process's scheduling (`setpriority` and
//!   `ioprio_set` but for the calling thread, `sched_setscheduler`,
//!   `sched_setparam`, `sched_setattr` with a pid other than 0): nice 19,
//!   the idle I/O class or the idle policy would starve the agent. A pack
//!   can still set its own threads' scheduling each from the thread
//!   itself, not another thread's by its id;
//! - unless granted `processes`: starting a process (`fork`, `vfork`,
//!   `clone` without `CLONE_THREAD`, `execve`, `execveat`), so the
//!   address-space limit, which is per process, bounds the whole pack.
//!   Threads still start;
//! - without namespaces (the agent says whether it started the process in
//!   them) and unless granted `write-anywhere`: every call that changes a
//!   file's mode, owner, times or extended attributes (`chmod`, `chown`,
//!   `utimensat`, `setxattr`, `removexattr` and their `f…`, `l…` and
//!   `…at` kin). Landlock does not cover metadata, and there no read-only
//!   mount keeps the files outside the writable directories as they are;
//! - unless granted `network`: `socket()` of every family. A Unix socket
//!   with a path is reachable through a read-only mount (connecting writes
//!   nothing), and Landlock scopes neither UDP nor Unix sockets; `socketpair`
//!   stays, as its two ends are the pack's own.
//!
//! `clone3` always fails with `ENOSYS`: its flags sit in memory a filter
//! cannot read, and on `ENOSYS` the C library falls back to `clone`, whose
//! flags it can. On x86_64 the x32 system calls (another numbering the
//! same architecture accepts) fail with `ENOSYS` too, so none of the
//! above is reachable under a second number.
//!
//! The filter is installed on every thread (`TSYNC`) with
//! `PR_SET_NO_NEW_PRIVS`, and is inherited by every thread and process
//! the pack starts; nothing can remove it. Only x86_64 and aarch64 get one:
//! elsewhere [`install`] reports none, and the sandbox status says so.

use xcsh_isolate_protocol::SandboxRequest;

/// Why the filter is not in force.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum SeccompError {
    /// The filter could not be compiled for this architecture.
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    #[error("cannot set up the seccomp filter")]
    Build(#[source] seccompiler::BackendError),
    /// The kernel refused the filter.
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    #[error("cannot set up the seccomp filter")]
    Install(#[source] seccompiler::Error),
}

/// Installs the filter `request` calls for (see the module's docs) on
/// every thread of this process. `Ok(true)`: in force; `Ok(false)`: this
/// system or architecture has no filter.
///
/// # Errors
///
/// The kernel refused the filter.
pub(crate) fn install(request: &SandboxRequest) -> Result<bool, SeccompError> {
    imp::install(request)
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod imp {
    use std::collections::BTreeMap;

    use seccompiler::{
        BackendError, BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition,
        SeccompFilter, SeccompRule, TargetArch,
    };
    use xcsh_isolate_protocol::SandboxRequest;

    use super::SeccompError;

    /// System calls by number, each refused when any of its rules matches
    /// (no rule: always).
    type Rules = BTreeMap<i64, Vec<SeccompRule>>;

    pub(super) fn install(request: &SandboxRequest) -> Result<bool, SeccompError> {
        for program in programs(request).map_err(SeccompError::Build)? {
            seccompiler::apply_filter_all_threads(&program).map_err(SeccompError::Install)?;
        }
        Ok(true)
    }

    /// The programs to install: the `EPERM` filter, the `ENOSYS` one, and
    /// on x86_64 the x32 guard.
    pub(super) fn programs(request: &SandboxRequest) -> Result<Vec<BpfProgram>, BackendError> {
        let arch = TargetArch::try_from(std::env::consts::ARCH)?;
        let compile = |rules: Rules, errno: i32| -> Result<BpfProgram, BackendError> {
            let filter = SeccompFilter::new(
                rules,
                SeccompAction::Allow,
                SeccompAction::Errno(errno.unsigned_abs()),
                arch,
            )?;
            filter.try_into()
        };
        let mut programs = vec![
            compile(refused(request)?, libc::EPERM)?,
            compile(
                BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
                libc::ENOSYS,
            )?,
        ];
        programs.extend(x32_guard());
        Ok(programs)
    }

    /// What fails with `EPERM`, for `request`'s grants.
    pub(super) fn refused(request: &SandboxRequest) -> Result<Rules, BackendError> {
        let mut rules = Rules::new();
        let always = [
            libc::SYS_ptrace,
            libc::SYS_process_vm_readv,
            libc::SYS_process_vm_writev,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_pivot_root,
            libc::SYS_chroot,
            libc::SYS_fsopen,
            libc::SYS_fsconfig,
            libc::SYS_fsmount,
            libc::SYS_move_mount,
            libc::SYS_open_tree,
            libc::SYS_fspick,
            libc::SYS_mount_setattr,
            libc::SYS_bpf,
            libc::SYS_perf_event_open,
            libc::SYS_userfaultfd,
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_kexec_load,
            libc::SYS_kexec_file_load,
            libc::SYS_init_module,
            libc::SYS_finit_module,
            libc::SYS_delete_module,
            libc::SYS_reboot,
            libc::SYS_swapon,
            libc::SYS_swapoff,
            libc::SYS_acct,
            libc::SYS_open_by_handle_at,
            libc::SYS_syslog,
            libc::SYS_settimeofday,
            libc::SYS_clock_settime,
            libc::SYS_clock_adjtime,
            libc::SYS_adjtimex,
            // Hanging up the controlling terminal (the REPL's).
            libc::SYS_vhangup,
        ];
        for call in always.into_iter().chain(arch_only()) {
            rules.insert(call, Vec::new());
        }
        // Typing into a terminal (`TIOCSTI`), the console's own commands
        // (`TIOCLINUX`), taking a terminal as its own (`TIOCSCTTY`),
        // hanging one up (`TIOCVHANGUP`) or taking the console's output
        // (`TIOCCONS`): the request is an `int`, so only its low 32 bits
        // count.
        rules.insert(
            libc::SYS_ioctl,
            [
                libc::TIOCSTI,
                libc::TIOCLINUX,
                libc::TIOCSCTTY,
                libc::TIOCVHANGUP,
                libc::TIOCCONS,
            ]
            .into_iter()
            .map(|request| rule(1, SeccompCmpOp::Eq, u64::from(request as u32)))
            .collect::<Result<_, _>>()?,
        );
        // A new namespace by `clone`, as `unshare` would make it.
        let namespaces = [
            libc::CLONE_NEWNS,
            libc::CLONE_NEWCGROUP,
            libc::CLONE_NEWUTS,
            libc::CLONE_NEWIPC,
            libc::CLONE_NEWUSER,
            libc::CLONE_NEWPID,
            libc::CLONE_NEWNET,
        ];
        let mut clone: Vec<SeccompRule> = namespaces
            .into_iter()
            .map(|flag| {
                let flag = u64::from(flag.unsigned_abs());
                rule(0, SeccompCmpOp::MaskedEq(flag), flag)
            })
            .collect::<Result<_, _>>()?;
        if !request.processes {
            let thread = u64::from(libc::CLONE_THREAD.unsigned_abs());
            clone.push(rule(0, SeccompCmpOp::MaskedEq(thread), 0)?);
            for call in [libc::SYS_execve, libc::SYS_execveat]
                .into_iter()
                .chain(forks())
            {
                rules.insert(call, Vec::new());
            }
        }
        rules.insert(libc::SYS_clone, clone);
        // Another process's resource limits: its parent's, the agent where
        // no PID namespace hides it, set to a megabyte of memory or a
        // second of processor time would kill it. Its own (pid 0, as the
        // C library's `setrlimit` asks) and reading any stay allowed.
        rules.insert(
            libc::SYS_prlimit64,
            vec![SeccompRule::new(vec![
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, 0)?,
                SeccompCondition::new(2, SeccompCmpArgLen::Qword, SeccompCmpOp::Ne, 0)?,
            ])?],
        );
        // Another process's scheduling: without namespaces the agent's,
        // set to nice 19, the idle I/O class or the idle policy by any
        // process of the same user, would starve it. Only the calling
        // thread's own (`who`/pid 0) stays allowed; `setpriority` and
        // `ioprio_set` for a process group or a user (all of the user's
        // processes, the agent's among them) are refused.
        let own_only = |which: u64| -> Result<Vec<SeccompRule>, BackendError> {
            Ok(vec![
                rule(0, SeccompCmpOp::Ne, which)?,
                rule(1, SeccompCmpOp::Ne, 0)?,
            ])
        };
        rules.insert(libc::SYS_setpriority, own_only(libc::PRIO_PROCESS as u64)?);
        // IOPRIO_WHO_PROCESS.
        rules.insert(libc::SYS_ioprio_set, own_only(1)?);
        for call in [
            libc::SYS_sched_setscheduler,
            libc::SYS_sched_setparam,
            libc::SYS_sched_setattr,
        ] {
            rules.insert(call, vec![rule(0, SeccompCmpOp::Ne, 0)?]);
        }
        // Without namespaces nothing makes the files outside the writable
        // directories read-only, and Landlock does not cover metadata:
        // changing any file's mode, owner, times or extended attributes
        // is refused.
        if !request.in_namespaces && !request.write_anywhere {
            for call in metadata_calls() {
                rules.insert(call, Vec::new());
            }
        }
        if !request.network {
            rules.insert(libc::SYS_socket, Vec::new());
        }
        Ok(rules)
    }

    /// Every call that changes a file's mode, owner, times or extended
    /// attributes, by path or by descriptor (`fchmodat2`, `setxattrat`
    /// and `removexattrat` by number: Linux 6.6 and 6.13, newer than
    /// `libc`'s lists; the same number on both architectures).
    fn metadata_calls() -> impl Iterator<Item = i64> {
        const FCHMODAT2: i64 = 452;
        const SETXATTRAT: i64 = 463;
        const REMOVEXATTRAT: i64 = 466;
        [
            libc::SYS_fchmod,
            libc::SYS_fchmodat,
            FCHMODAT2,
            libc::SYS_fchown,
            libc::SYS_fchownat,
            libc::SYS_utimensat,
            libc::SYS_setxattr,
            libc::SYS_lsetxattr,
            libc::SYS_fsetxattr,
            SETXATTRAT,
            libc::SYS_removexattr,
            libc::SYS_lremovexattr,
            libc::SYS_fremovexattr,
            REMOVEXATTRAT,
        ]
        .into_iter()
        .chain(legacy_metadata_calls())
    }

    /// The path-only metadata calls x86_64 keeps from before the `…at`
    /// family (aarch64 never had them).
    #[cfg(target_arch = "x86_64")]
    fn legacy_metadata_calls() -> [i64; 6] {
        [
            libc::SYS_chmod,
            libc::SYS_chown,
            libc::SYS_lchown,
            libc::SYS_utime,
            libc::SYS_utimes,
            libc::SYS_futimesat,
        ]
    }

    #[cfg(target_arch = "aarch64")]
    fn legacy_metadata_calls() -> [i64; 0] {
        []
    }

    /// One condition on the low 32 bits of argument `index`.
    fn rule(index: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, BackendError> {
        SeccompRule::new(vec![SeccompCondition::new(
            index,
            SeccompCmpArgLen::Dword,
            op,
            value,
        )?])
    }

    #[cfg(target_arch = "x86_64")]
    fn arch_only() -> [i64; 3] {
        [libc::SYS_iopl, libc::SYS_ioperm, libc::SYS_uselib]
    }

    #[cfg(target_arch = "aarch64")]
    fn arch_only() -> [i64; 0] {
        []
    }

    /// The system calls that only start processes (aarch64 has neither:
    /// its C library forks with `clone`).
    #[cfg(target_arch = "x86_64")]
    fn forks() -> [i64; 2] {
        [libc::SYS_fork, libc::SYS_vfork]
    }

    #[cfg(target_arch = "aarch64")]
    fn forks() -> [i64; 0] {
        []
    }

    /// x86_64 also accepts x32 system calls: the same architecture in the
    /// filter's eyes, numbered from `__X32_SYSCALL_BIT`, so none of the
    /// numbers above would match them. `seccompiler` matches numbers one
    /// by one; this four-instruction program refuses the whole range
    /// (`ENOSYS`, as on a kernel built without x32).
    #[cfg(target_arch = "x86_64")]
    fn x32_guard() -> Option<BpfProgram> {
        use seccompiler::sock_filter;
        const X32_SYSCALL_BIT: u32 = 0x4000_0000;
        // `struct seccomp_data`: `nr` is its first field.
        const NR_OFFSET: u32 = 0;
        // BPF_LD | BPF_W | BPF_ABS, BPF_JMP | BPF_JGE | BPF_K, BPF_RET | BPF_K.
        const BPF_LD_W_ABS: u16 = 0x20;
        const BPF_JMP_JGE_K: u16 = 0x05 | 0x30;
        const BPF_RET_K: u16 = 0x06;
        let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
        Some(vec![
            op(BPF_LD_W_ABS, 0, 0, NR_OFFSET),
            op(BPF_JMP_JGE_K, 0, 1, X32_SYSCALL_BIT),
            op(
                BPF_RET_K,
                0,
                0,
                libc::SECCOMP_RET_ERRNO | libc::ENOSYS.unsigned_abs(),
            ),
            op(BPF_RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
        ])
    }

    #[cfg(target_arch = "aarch64")]
    fn x32_guard() -> Option<BpfProgram> {
        None
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod imp {
    use xcsh_isolate_protocol::SandboxRequest;

    use super::SeccompError;

    pub(super) fn install(_request: &SandboxRequest) -> Result<bool, SeccompError> {
        Ok(false)
    }
}

#[cfg(all(
    test,
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod tests {
    use super::imp::{programs, refused};
    use xcsh_isolate_protocol::SandboxRequest;

    fn request(processes: bool, network: bool) -> SandboxRequest {
        SandboxRequest {
            processes,
            network,
            ..SandboxRequest::default()
        }
    }

    #[test]
    fn grants_take_their_calls_off_the_list_and_nothing_else() {
        let none = refused(&request(false, false)).unwrap();
        for call in [libc::SYS_execve, libc::SYS_execveat, libc::SYS_socket] {
            assert!(none.contains_key(&call), "{call}");
        }
        let both = refused(&request(true, true)).unwrap();
        for call in [libc::SYS_execve, libc::SYS_execveat, libc::SYS_socket] {
            assert!(!both.contains_key(&call), "{call}");
        }
        for call in [libc::SYS_ptrace, libc::SYS_io_uring_setup, libc::SYS_mount] {
            assert!(both.contains_key(&call), "{call}");
        }
        // `clone` keeps its namespace rules; only the thread rule goes.
        assert_eq!(none[&libc::SYS_clone].len(), 8);
        assert_eq!(both[&libc::SYS_clone].len(), 7);
    }

    #[test]
    fn metadata_calls_are_refused_only_without_namespaces_or_write_anywhere() {
        let calls = [libc::SYS_fchmodat, libc::SYS_fchownat, libc::SYS_utimensat];
        let fallback = refused(&request(false, false)).unwrap();
        assert!(calls.iter().all(|call| fallback.contains_key(call)));
        let namespaces = SandboxRequest {
            in_namespaces: true,
            ..request(false, false)
        };
        let namespaces = refused(&namespaces).unwrap();
        assert!(calls.iter().all(|call| !namespaces.contains_key(call)));
        let anywhere = SandboxRequest {
            write_anywhere: true,
            ..request(false, false)
        };
        let anywhere = refused(&anywhere).unwrap();
        assert!(calls.iter().all(|call| !anywhere.contains_key(call)));
        // What no sandbox lets a pack do with a shared terminal, nor
        // with another process's limits.
        for map in [&fallback, &namespaces, &anywhere] {
            assert!(map.contains_key(&libc::SYS_vhangup));
            assert_eq!(map[&libc::SYS_ioctl].len(), 5);
            assert_eq!(map[&libc::SYS_prlimit64].len(), 1);
            assert_eq!(map[&libc::SYS_setpriority].len(), 2);
            assert_eq!(map[&libc::SYS_ioprio_set].len(), 2);
            assert_eq!(map[&libc::SYS_sched_setscheduler].len(), 1);
        }
    }

    #[test]
    fn every_program_compiles_for_this_architecture() {
        let programs = programs(&request(false, false)).unwrap();
        assert_eq!(
            programs.len(),
            if cfg!(target_arch = "x86_64") { 3 } else { 2 }
        );
        assert!(programs.iter().all(|program| !program.is_empty()));
    }
}
