//! A [`NamespacePlan`] as bubblewrap's (`bwrap`) arguments: the engine the
//! comparison benchmark runs beside xcsh's own, when
//! [`BWRAP_ENV`](super::namespaces::BWRAP_ENV) names one.

use std::ffi::{OsStr, OsString};

use xcsh_isolate_protocol::{MountStep, NamespacePlan};

/// Where the agent's image is handed to `bwrap`, which executes it as
/// `/proc/self/fd/EXE_FD` inside the sandbox.
pub const EXE_FD: i32 = 4;

/// `bwrap`'s arguments for `plan`, running the image at [`EXE_FD`] with
/// `args`.
pub fn arguments(plan: &NamespacePlan, args: &[OsString]) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    let mut push = |items: &[&OsStr]| out.extend(items.iter().map(|s| s.to_os_string()));
    push(&["--die-with-parent".as_ref(), "--new-session".as_ref()]);
    push(&["--unshare-all".as_ref()]);
    if plan.network {
        push(&["--share-net".as_ref()]);
    }
    for step in &plan.mounts {
        match step {
            MountStep::Root { writable } => {
                let flag = if *writable { "--bind" } else { "--ro-bind" };
                push(&[flag.as_ref(), "/".as_ref(), "/".as_ref()]);
            }
            MountStep::Dev(path) => push(&["--dev".as_ref(), path.as_os_str()]),
            MountStep::Proc(path) => push(&["--proc".as_ref(), path.as_os_str()]),
            MountStep::Tmpfs(path) => push(&["--tmpfs".as_ref(), path.as_os_str()]),
            MountStep::Bind {
                path,
                read_only,
                if_exists,
            } => {
                let flag = match (read_only, if_exists) {
                    (false, false) => "--bind",
                    (true, false) => "--ro-bind",
                    (false, true) => "--bind-try",
                    (true, true) => "--ro-bind-try",
                };
                push(&[flag.as_ref(), path.as_os_str(), path.as_os_str()]);
            }
        }
    }
    push(&["--chdir".as_ref(), plan.cwd.as_os_str()]);
    let exe = format!("/proc/self/fd/{EXE_FD}");
    push(&["--".as_ref(), exe.as_ref()]);
    out.extend(args.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_is_its_bubblewrap_option() {
        let plan = NamespacePlan {
            network: false,
            mounts: vec![
                MountStep::Root { writable: false },
                MountStep::Tmpfs("/tmp".into()),
                MountStep::Bind {
                    path: "/w".into(),
                    read_only: false,
                    if_exists: false,
                },
                MountStep::Bind {
                    path: "/w/.git".into(),
                    read_only: true,
                    if_exists: true,
                },
            ],
            cwd: "/w".into(),
            agent: 1,
        };
        let text: Vec<String> = arguments(&plan, &["pack-host".into()])
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            text,
            [
                "--die-with-parent",
                "--new-session",
                "--unshare-all",
                "--ro-bind",
                "/",
                "/",
                "--tmpfs",
                "/tmp",
                "--bind",
                "/w",
                "/w",
                "--ro-bind-try",
                "/w/.git",
                "/w/.git",
                "--chdir",
                "/w",
                "--",
                "/proc/self/fd/4",
                "pack-host"
            ]
        );
    }
}
