//! What an isolated pack's process does to itself before it opens the
//! pack: an address-space limit, then the Landlock sandbox, then the
//! seccomp filter ([`seccomp`](crate::seccomp)).
//!
//! Runs on the child's only thread, before any other starts: Landlock
//! restricts the calling thread and the threads and processes it starts
//! afterwards.

use xcsh_isolate_protocol::{SandboxRequest, SandboxStatus};

use crate::seccomp;

/// Limits the process's address space to `bytes` (`RLIMIT_AS`): a runaway
/// allocation in the pack then fails instead of exhausting the machine.
///
/// # Errors
///
/// The kernel refused the limit.
pub fn limit_memory(bytes: u64) -> Result<(), String> {
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, setrlimit};
        setrlimit(Resource::RLIMIT_AS, bytes, bytes)
            .map_err(|e| format!("cannot set the memory limit of {bytes} bytes: {e}"))
    }
    #[cfg(not(unix))]
    {
        Err(format!(
            "memory limits ({bytes} bytes asked for) need a Unix system"
        ))
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
pub fn enter(request: &SandboxRequest) -> Result<SandboxStatus, String> {
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
fn no_new_privileges() -> Result<(), String> {
    nix::sys::prctl::set_no_new_privs().map_err(|e| format!("cannot set PR_SET_NO_NEW_PRIVS: {e}"))
}

#[cfg(not(target_os = "linux"))]
fn no_new_privileges() -> Result<(), String> {
    Ok(())
}

#[cfg(target_os = "linux")]
fn landlock_enter(request: &SandboxRequest) -> Result<Landlock, String> {
    use landlock::{
        ABI, Access as _, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr as _,
        RulesetCreatedAttr as _, RulesetStatus, path_beneath_rules,
    };

    let abi = ABI::V7;
    let fail = |e: landlock::RulesetError| format!("cannot set up the Landlock sandbox: {e}");
    let mut ruleset = Ruleset::default();
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
    if !request.write_anywhere {
        // `/dev/null` too: writing to it is how programs discard output.
        let writable = request
            .writable
            .iter()
            .map(std::path::PathBuf::as_path)
            .chain([std::path::Path::new("/dev/null")])
            .filter(|path| path.exists());
        created = created
            .add_rules(path_beneath_rules(writable, AccessFs::from_write(abi)))
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

#[cfg(not(target_os = "linux"))]
fn landlock_enter(_request: &SandboxRequest) -> Result<Landlock, String> {
    Ok(Landlock::Unconfined(
        "no sandbox on this operating system".to_owned(),
    ))
}

/// How `xcsh tools` describes a sandbox status.
pub fn describe(status: &SandboxStatus) -> String {
    match status {
        SandboxStatus::Enforced { abi, seccomp } => {
            format!("sandboxed (Landlock ABI {abi}{})", filtered(*seccomp))
        }
        SandboxStatus::Partial { abi, seccomp } => format!(
            "partly sandboxed (Landlock ABI {abi} lacks some restrictions{})",
            filtered(*seccomp)
        ),
        SandboxStatus::Unconfined { reason, seccomp } => {
            format!("unconfined: {reason}{}", filtered(*seccomp))
        }
        SandboxStatus::Namespaces { landlock } => match &**landlock {
            SandboxStatus::Enforced { abi, seccomp } => {
                format!(
                    "sandboxed (bubblewrap, Landlock ABI {abi}{})",
                    filtered(*seccomp)
                )
            }
            SandboxStatus::Partial { abi, seccomp } => {
                format!(
                    "sandboxed (bubblewrap, Landlock ABI {abi} partly{})",
                    filtered(*seccomp)
                )
            }
            SandboxStatus::Unconfined { seccomp, .. } => {
                format!(
                    "sandboxed (bubblewrap, no Landlock inside{})",
                    filtered(*seccomp)
                )
            }
            SandboxStatus::Namespaces { .. } | SandboxStatus::LandlockOnly { .. } => {
                "sandboxed (bubblewrap, no Landlock inside)".to_owned()
            }
        },
        SandboxStatus::LandlockOnly { reason, landlock } => match &**landlock {
            SandboxStatus::Enforced { abi, seccomp } => format!(
                "sandboxed (Landlock only: {reason}; Landlock ABI {abi}{})",
                filtered(*seccomp)
            ),
            SandboxStatus::Partial { abi, seccomp } => format!(
                "partly sandboxed (Landlock only: {reason}; Landlock ABI {abi} lacks some restrictions{})",
                filtered(*seccomp)
            ),
            SandboxStatus::Unconfined {
                reason: why,
                seccomp,
            } => format!("unconfined: {why}; {reason}{}", filtered(*seccomp)),
            other => describe(other),
        },
    }
}

/// What a pack's sandbox lets it do, in one short phrase for `xcsh tools`:
/// `may write the working directory, no network, no processes`; `None`
/// where it runs
/// unconfined (the status says so).
pub fn may_do(request: &SandboxRequest, status: &SandboxStatus) -> Option<String> {
    if matches!(status, SandboxStatus::Unconfined { .. }) {
        return None;
    }
    let write = if request.write_anywhere {
        "may write anywhere"
    } else {
        "may write the working directory"
    };
    let network = if request.network {
        "network"
    } else {
        "no network"
    };
    let processes = if request.processes {
        "processes"
    } else {
        "no processes"
    };
    Some(format!("{write}, {network}, {processes}"))
}

/// The phrase `describe` adds for the seccomp filter.
fn filtered(seccomp: bool) -> &'static str {
    if seccomp { ", seccomp" } else { ", no seccomp" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_namespaces_the_status_says_landlock_only_and_why() {
        let alone = |landlock| SandboxStatus::LandlockOnly {
            reason: "bubblewrap is not installed".to_owned(),
            landlock: Box::new(landlock),
        };
        assert_eq!(
            describe(&alone(SandboxStatus::Enforced {
                abi: 7,
                seccomp: true
            })),
            "sandboxed (Landlock only: bubblewrap is not installed; Landlock ABI 7, seccomp)"
        );
        assert_eq!(
            describe(&alone(SandboxStatus::Unconfined {
                reason: "this kernel has no Landlock".to_owned(),
                seccomp: false
            })),
            "unconfined: this kernel has no Landlock; bubblewrap is not installed, no seccomp"
        );
    }

    #[test]
    fn the_phrase_follows_the_grants() {
        let confined = SandboxStatus::Enforced {
            abi: 7,
            seccomp: true,
        };
        let mut request = SandboxRequest::default();
        assert_eq!(
            may_do(&request, &confined).unwrap(),
            "may write the working directory, no network, no processes"
        );
        request.network = true;
        request.write_anywhere = true;
        request.processes = true;
        assert_eq!(
            may_do(&request, &confined).unwrap(),
            "may write anywhere, network, processes"
        );
        let unconfined = SandboxStatus::Unconfined {
            reason: "granted network and write-anywhere".to_owned(),
            seccomp: true,
        };
        assert_eq!(may_do(&request, &unconfined), None);
    }
}
