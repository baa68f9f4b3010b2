//! What an isolated pack's process does to itself before it opens the
//! pack: an address-space limit, then the Landlock sandbox, then the
//! seccomp filter ([`seccomp`](crate::seccomp)).
//!
//! Runs on the child's only thread, before any other starts: Landlock
//! restricts the calling thread and the threads and processes it starts
//! afterwards.

use xcsh_isolate_protocol::{SandboxRequest, SandboxStatus};

use crate::seccomp::{self, SeccompError};

/// Why the process could not limit or sandbox itself (each sent to the
/// agent as the pack's reason not to open, on one line with its cause).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum SandboxError {
    /// The kernel refused the address-space limit.
    #[cfg(unix)]
    #[error("cannot set the memory limit of {bytes} bytes")]
    MemoryLimit {
        /// The limit asked for.
        bytes: u64,
        /// What the kernel said.
        #[source]
        source: nix::errno::Errno,
    },
    /// This system has no address-space limit.
    #[cfg(not(unix))]
    #[error("memory limits ({bytes} bytes asked for) need a Unix system")]
    MemoryLimitUnsupported {
        /// The limit asked for.
        bytes: u64,
    },
    /// The kernel refused `PR_SET_NO_NEW_PRIVS`.
    #[cfg(target_os = "linux")]
    #[error("cannot set PR_SET_NO_NEW_PRIVS")]
    NoNewPrivileges(#[source] nix::errno::Errno),
    /// The kernel has Landlock but refused the ruleset.
    #[cfg(target_os = "linux")]
    #[error("cannot set up the Landlock sandbox")]
    Landlock(#[source] landlock::RulesetError),
    /// The seccomp filter could not be built or installed.
    #[error(transparent)]
    Seccomp(#[from] SeccompError),
}

/// Limits the process's address space to `bytes` (`RLIMIT_AS`): a runaway
/// allocation in the pack then fails instead of exhausting the machine.
///
/// # Errors
///
/// The kernel refused the limit.
pub(crate) fn limit_memory(bytes: u64) -> Result<(), SandboxError> {
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, setrlimit};
        setrlimit(Resource::RLIMIT_AS, bytes, bytes)
            .map_err(|source| SandboxError::MemoryLimit { bytes, source })
    }
    #[cfg(not(unix))]
    {
        Err(SandboxError::MemoryLimitUnsupported { bytes })
    }
}

/// What Landlock made of a request.
enum Landlock {
    Enforced(u32),
    Partial(u32),
    Unconfined(String),
}

/// Enters the sandbox `request` describes, as far as the kernel allows:
/// no new privileges (whatever is granted, so no set-user-ID program
/// gains any), Landlock unless granted both `network` and
/// `write-anywhere`, then the seccomp filter, which refuses its
/// always-refused calls even then.
///
/// # Errors
///
/// The kernel refused `PR_SET_NO_NEW_PRIVS`, or has Landlock but refused
/// the ruleset, or refused the seccomp filter.
pub(crate) fn enter(request: &SandboxRequest) -> Result<SandboxStatus, SandboxError> {
    no_new_privileges()?;
    let landlock = if request.write_anywhere && request.network {
        Landlock::Unconfined("granted network and write-anywhere".to_owned())
    } else {
        landlock_enter(request)?
    };
    let seccomp = seccomp::install(request)?;
    Ok(match landlock {
        Landlock::Enforced(abi) => SandboxStatus::Enforced { abi, seccomp },
        Landlock::Partial(abi) => SandboxStatus::Partial { abi, seccomp },
        Landlock::Unconfined(reason) => SandboxStatus::Unconfined { reason, seccomp },
    })
}

#[cfg(target_os = "linux")]
fn no_new_privileges() -> Result<(), SandboxError> {
    nix::sys::prctl::set_no_new_privs().map_err(SandboxError::NoNewPrivileges)
}

#[cfg(not(target_os = "linux"))]
fn no_new_privileges() -> Result<(), SandboxError> {
    Ok(())
}

#[cfg(target_os = "linux")]
fn landlock_enter(request: &SandboxRequest) -> Result<Landlock, SandboxError> {
    use landlock::{
        ABI, Access as _, AccessFs, AccessNet, BitFlags, LandlockStatus, Ruleset, RulesetAttr as _,
        RulesetCreatedAttr as _, RulesetStatus, Scope, path_beneath_rules,
    };

    let abi = ABI::V7;
    let fail = SandboxError::Landlock;
    // Signals to any process outside the sandbox (the agent: `kill` of its
    // parent) are refused, whatever is granted; abstract Unix sockets made
    // outside it too, unless it is granted the network.
    let scopes = if request.network {
        BitFlags::from(Scope::Signal)
    } else {
        Scope::Signal | Scope::AbstractUnixSocket
    };
    // Without namespaces, listing a directory is handled too: no empty
    // directory is mounted over a hidden one there, so only Landlock keeps
    // its names from the pack. (In the namespaces the empty mount does,
    // and directories above a hidden one stay listable.)
    let read = if request.in_namespaces {
        BitFlags::from(AccessFs::ReadFile)
    } else {
        AccessFs::ReadFile | AccessFs::ReadDir
    };
    let mut ruleset = Ruleset::default()
        .handle_access(read)
        .map_err(fail)?
        .scope(scopes)
        .map_err(fail)?;
    if !request.write_anywhere {
        ruleset = ruleset
            .handle_access(AccessFs::from_write(abi))
            .map_err(fail)?;
    }
    if !request.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(fail)?;
    }
    let mut created = ruleset.create().map_err(fail)?;
    created = created
        .add_rules(path_beneath_rules(readable(&request.hidden), read))
        .map_err(fail)?;
    if request.in_namespaces {
        // What it may write it may read, whatever it made there since it
        // started: a hidden directory in it is already an empty mount.
        let written: Vec<std::path::PathBuf> = if request.write_anywhere {
            vec!["/".into()]
        } else {
            request.writable.clone()
        };
        created = created
            .add_rules(path_beneath_rules(written, read))
            .map_err(fail)?;
    } else {
        // `/proc` listed (its numbered entries' files stay unreadable).
        created = created
            .add_rules(path_beneath_rules(["/proc"], AccessFs::ReadDir))
            .map_err(fail)?;
    }
    if !request.write_anywhere {
        // `/dev/null` too: writing to it is how programs discard output.
        let writable: Vec<std::path::PathBuf> = request
            .writable
            .iter()
            .map(std::path::PathBuf::as_path)
            .chain([std::path::Path::new("/dev/null")])
            .filter(|path| path.exists())
            .map(|path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
            .collect();
        // Without namespaces, everything but device nodes: a pack that
        // runs as root makes no disk or memory device where it may write
        // (in namespaces its root is no root outside them, and the kernel
        // refuses it first).
        let mut granted = AccessFs::from_write(abi);
        let mut rules = writable.clone();
        if !request.in_namespaces {
            granted &= !(AccessFs::MakeChar | AccessFs::MakeBlock);
            // No mount keeps a hidden directory beneath a writable one
            // here: the pack may write beside it, at each directory above
            // it, but not in it, nor remove, rename or replace it.
            let hidden: Vec<&std::path::Path> = request
                .hidden
                .iter()
                .map(std::path::PathBuf::as_path)
                .collect();
            rules = writable
                .iter()
                .flat_map(|dir| crate::hidden::beside(dir, &hidden))
                .collect();
            // Listed where it may write (a hidden directory beneath shows
            // its names then, never what its files hold).
            let dirs = writable.iter().filter(|path| path.is_dir());
            created = created
                .add_rules(path_beneath_rules(dirs, AccessFs::ReadDir))
                .map_err(fail)?;
        }
        created = created
            .add_rules(path_beneath_rules(rules, granted))
            .map_err(fail)?;
    }
    let status = created.restrict_self().map_err(fail)?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as u32,
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => 0,
    };
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => Landlock::Enforced(abi),
        RulesetStatus::PartiallyEnforced => Landlock::Partial(abi),
        RulesetStatus::NotEnforced => Landlock::Unconfined(
            match status.landlock {
                LandlockStatus::NotEnabled => "Landlock is not enabled in this kernel",
                _ => "this kernel has no Landlock",
            }
            .to_owned(),
        ),
    })
}

/// What the pack may read files beneath: everything but other processes'
/// entries in `/proc` (another process's `environ` holds its secrets, the
/// agent's among them) and the `hidden` directories (xcsh's private one:
/// the journal's key, the MCP token): every entry of `/` but `/proc` and
/// those on the way to a hidden directory, and in `/proc` its own
/// (`self`) and the system's (`cpuinfo`, `meminfo`, `sys`, …), not the
/// numbered ones. An entry that cannot be opened (a dangling link) gets no
/// rule.
#[cfg(target_os = "linux")]
fn readable(hidden: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let hidden: Vec<&std::path::Path> = hidden
        .iter()
        .map(std::path::PathBuf::as_path)
        .chain([std::path::Path::new("/proc")])
        .collect();
    let mut found = crate::hidden::beside(std::path::Path::new("/"), &hidden);
    found.extend(
        std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| !name.bytes().all(|b| b.is_ascii_digit()))
            }),
    );
    found
}

#[cfg(not(target_os = "linux"))]
fn landlock_enter(_request: &SandboxRequest) -> Result<Landlock, SandboxError> {
    Ok(Landlock::Unconfined(
        "no sandbox on this operating system".to_owned(),
    ))
}
