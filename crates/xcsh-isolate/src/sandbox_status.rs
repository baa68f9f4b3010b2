//! A sandbox status in words, as `xcsh tools` shows it: what the process
//! reported and the agent recorded ([`identity`](crate::identity)), and
//! what the grants let the pack do.

use xcsh_isolate_protocol::{SandboxRequest, SandboxStatus};

/// How `xcsh tools` describes a sandbox status.
pub fn describe_sandbox(status: &SandboxStatus) -> String {
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
                    "sandboxed (namespaces, Landlock ABI {abi}{})",
                    filtered(*seccomp)
                )
            }
            SandboxStatus::Partial { abi, seccomp } => {
                format!(
                    "sandboxed (namespaces, Landlock ABI {abi} partly{})",
                    filtered(*seccomp)
                )
            }
            SandboxStatus::Unconfined { seccomp, .. } => {
                format!(
                    "sandboxed (namespaces, no Landlock inside{})",
                    filtered(*seccomp)
                )
            }
            SandboxStatus::Namespaces { .. } | SandboxStatus::LandlockOnly { .. } => {
                "sandboxed (namespaces, no Landlock inside)".to_owned()
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
            other => describe_sandbox(other),
        },
    }
}

/// What a pack's sandbox lets it do, in one short phrase for `xcsh tools`:
/// `may write the working directory, no network, no processes`; `None`
/// where it runs
/// unconfined (the status says so).
pub(crate) fn may_do(request: &SandboxRequest, status: &SandboxStatus) -> Option<String> {
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
            reason: "the config sets namespaces = false".to_owned(),
            landlock: Box::new(landlock),
        };
        assert_eq!(
            describe_sandbox(&alone(SandboxStatus::Enforced {
                abi: 7,
                seccomp: true
            })),
            "sandboxed (Landlock only: the config sets namespaces = false; Landlock ABI 7, seccomp)"
        );
        assert_eq!(
            describe_sandbox(&alone(SandboxStatus::Unconfined {
                reason: "this kernel has no Landlock".to_owned(),
                seccomp: false
            })),
            "unconfined: this kernel has no Landlock; the config sets namespaces = false, no seccomp"
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
