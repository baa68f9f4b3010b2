//! The namespace sandbox, planned by the agent: xcsh's own engine (no
//! system package needed) sets it up in the pack's process
//! (`xcsh pack-host --namespaces PLAN`, see `xcsh-pack-host`'s
//! `namespaces`), with Landlock and seccomp kept inside it as further
//! layers.
//!
//! What it gives one pack's process:
//!
//! - every namespace of its own (user, mount, PID, IPC, UTS, cgroup, and
//!   network with only its own loopback unless granted `network`): no
//!   view of or signal to any process outside, its own IPC and abstract
//!   sockets;
//! - the whole system read-only, `/dev` a minimal one (`null`, `zero`,
//!   `random`, …, no real device), `/proc` its own, `/tmp`, `/run` and the
//!   temporary directory private and empty (no socket of the user's there);
//! - the working directory writable (everything, with `write-anywhere`,
//!   and then no private directories), except what [`protected`] keeps:
//!   `.xcsh/` and `.git/` (empty placeholders where they do not exist yet,
//!   see [`placeholders`](super::placeholders)), xcsh's own directories,
//!   its binary and every pack library and directory, bound read-only,
//!   each in directories that cannot be renamed;
//! - xcsh's private directory (the journal's key, the MCP token: the
//!   `hidden` of [`Protected`](super::Protected)) under an empty one,
//!   mounted last so that no bind uncovers it;
//! - its own PID namespace, held by a process that dies with the agent:
//!   when the agent ends, or kills the process (time-out, restart, session
//!   end), every process the pack started dies with it.
//!
//! The engine is used wherever Linux lets an unprivileged user create a
//! user namespace; the first pack's start finds out (a start that fails
//! before xcsh runs inside marks the engine unusable, [`mark_unusable`],
//! and starts the pack again without it). `XCSH_BWRAP` names a
//! bubblewrap to run the same plan under instead, for the benchmark that
//! compares both (`benches/namespaces.sh`); nothing else uses it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use xcsh_isolate_protocol::{MountStep, NamespacePlan, SandboxRequest};

use super::protected::{self, Mount};

/// The variable naming a bubblewrap to set the namespaces up instead of
/// xcsh's own engine (the comparison benchmark's, never needed).
pub const BWRAP_ENV: &str = "XCSH_BWRAP";

/// What sets the namespaces up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// xcsh's own (`xcsh pack-host --namespaces PLAN`).
    BuiltIn,
    /// The bubblewrap [`BWRAP_ENV`] names.
    Bubblewrap(PathBuf),
}

/// Why packs run without namespaces here: the reason a sandbox status
/// gives (`sandboxed (Landlock only: {reason}; …)`).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Unavailable {
    /// Not Linux.
    #[error("namespaces need Linux")]
    NotLinux,
    /// A pack's start found that namespaces cannot be set up here.
    #[error("the namespace sandbox cannot be set up here ({line})")]
    CannotCreate {
        /// The engine's own error line.
        line: String,
    },
}

static UNUSABLE: OnceLock<Unavailable> = OnceLock::new();

/// The engine to use, or why there is none. No probe runs: the first
/// pack started in namespaces is the probe.
pub fn available() -> Result<Engine, Unavailable> {
    if let Some(why) = UNUSABLE.get() {
        return Err(why.clone());
    }
    if !cfg!(target_os = "linux") {
        return Err(Unavailable::NotLinux);
    }
    Ok(match std::env::var_os(BWRAP_ENV) {
        Some(path) if !path.is_empty() => Engine::Bubblewrap(path.into()),
        _ => Engine::BuiltIn,
    })
}

/// Notes, for the rest of this agent's life, that the namespaces of a
/// pack could not be set up, with the engine's own error `line`.
pub fn mark_unusable(line: &str) {
    let why = Unavailable::CannotCreate {
        line: line.to_owned(),
    };
    tracing::warn!("{why}: isolated packs run in the Landlock sandbox alone");
    let _ = UNUSABLE.set(why);
}

/// The plan for a process working in `cwd` under `request`, with
/// `protected` (and the records of `cwd`) kept read-only where they lie
/// in what it may write (see [`protected::mounts`]), and every directory
/// of `request.hidden` hidden under an empty one, mounted after every
/// other mount so that none uncovers it (one that does not exist, or lies
/// in a private directory of the sandbox, where it is not seen, needs
/// none).
pub fn plan(request: &SandboxRequest, cwd: &Path, protected: &[PathBuf]) -> NamespacePlan {
    let mut mounts = vec![
        MountStep::Root {
            writable: request.write_anywhere,
        },
        MountStep::Dev("/dev".into()),
        MountStep::Proc("/proc".into()),
    ];
    let mut private = Vec::new();
    let writable: Vec<PathBuf> = if request.write_anywhere {
        vec![PathBuf::from("/")]
    } else {
        let temp = std::fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| "/tmp".into());
        private = vec![PathBuf::from("/tmp"), PathBuf::from("/run")];
        if !private.contains(&temp) {
            private.push(temp);
        }
        mounts.extend(private.iter().cloned().map(MountStep::Tmpfs));
        // Bound even where it may not be written: it may lie in one of
        // the private directories.
        let writes_here = request.writable.iter().any(|dir| dir == cwd);
        mounts.push(MountStep::Bind {
            path: cwd.to_path_buf(),
            read_only: !writes_here,
            if_exists: false,
        });
        writes_here.then(|| cwd.to_path_buf()).into_iter().collect()
    };
    let kept: Vec<PathBuf> = protected::records_of(cwd)
        .into_iter()
        .chain(protected.iter().cloned())
        .collect();
    // A path removed since it was looked at (by the user, not the pack,
    // which has not started) needs no mount.
    for mount in protected::mounts(&writable, &kept) {
        let (path, read_only) = match mount {
            Mount::Pin(path) => (path, false),
            Mount::ReadOnly(path) => (path, true),
        };
        mounts.push(MountStep::Bind {
            path,
            read_only,
            if_exists: true,
        });
    }
    let seen = |dir: &&PathBuf| {
        dir.is_dir()
            && !private
                .iter()
                .any(|private| dir.starts_with(private) && cwd_outside(cwd, dir))
    };
    mounts.extend(
        request
            .hidden
            .iter()
            .filter(seen)
            .cloned()
            .map(MountStep::Tmpfs),
    );
    NamespacePlan {
        network: request.network,
        mounts,
        cwd: cwd.to_path_buf(),
        agent: std::process::id(),
    }
}

/// Whether `dir` lies outside the working directory `cwd` (which is bound
/// back over the private directories when it lies in one).
fn cwd_outside(cwd: &Path, dir: &Path) -> bool {
    !dir.starts_with(cwd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind(path: &Path, read_only: bool, if_exists: bool) -> MountStep {
        MountStep::Bind {
            path: path.to_path_buf(),
            read_only,
            if_exists,
        }
    }

    #[test]
    fn the_working_directory_is_writable_but_its_records_are_not() {
        let cwd = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(cwd.path()).unwrap();
        std::fs::create_dir(cwd.join(".xcsh")).unwrap();
        let request = SandboxRequest {
            writable: vec![cwd.clone()],
            ..SandboxRequest::default()
        };
        let plan = plan(&request, &cwd, &[]);
        assert!(!plan.network);
        assert_eq!(plan.mounts[0], MountStep::Root { writable: false });
        let at = |step: &MountStep| plan.mounts.iter().position(|s| s == step);
        let writable = at(&bind(&cwd, false, false)).unwrap();
        let records = at(&bind(&cwd.join(".xcsh"), true, true)).unwrap();
        assert!(records > writable, "bound read-only over the writable one");
        assert!(at(&bind(&cwd.join(".git"), true, true)).is_none(), "absent");
        assert!(at(&MountStep::Tmpfs("/tmp".into())).unwrap() < writable);
        assert_eq!(plan.cwd, cwd);
    }

    #[test]
    fn a_binary_under_the_working_directory_is_read_only_and_stays_at_its_path() {
        let cwd = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(cwd.path()).unwrap();
        std::fs::create_dir_all(cwd.join("target/debug")).unwrap();
        let exe = cwd.join("target/debug/xcsh");
        std::fs::write(&exe, "").unwrap();
        let request = SandboxRequest {
            writable: vec![cwd.clone()],
            ..SandboxRequest::default()
        };
        let plan = plan(&request, &cwd, std::slice::from_ref(&exe));
        let at = |step: &MountStep| plan.mounts.iter().position(|s| s == step).unwrap();
        let writable = at(&bind(&cwd, false, false));
        let pinned = at(&bind(&cwd.join("target"), false, true));
        let pinned_deeper = at(&bind(&cwd.join("target/debug"), false, true));
        let exe_at = at(&bind(&exe, true, true));
        assert!(writable < pinned && pinned < pinned_deeper && pinned_deeper < exe_at);
    }

    #[test]
    fn a_check_that_writes_nothing_gets_no_writable_working_directory() {
        let cwd = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(cwd.path()).unwrap();
        let request = SandboxRequest {
            writable: vec![std::env::temp_dir()],
            ..SandboxRequest::default()
        };
        let plan = plan(&request, &cwd, &[]);
        assert!(plan.mounts.contains(&bind(&cwd, true, false)), "{plan:?}");
        assert!(
            !plan.mounts.iter().any(|step| matches!(
                step,
                MountStep::Bind {
                    read_only: false,
                    ..
                }
            )),
            "{plan:?}"
        );
    }

    #[test]
    fn a_hidden_directory_gets_an_empty_one_over_it_after_every_other_mount() {
        let cwd = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(cwd.path()).unwrap();
        let data = cwd.join("data");
        std::fs::create_dir_all(data.join("private")).unwrap();
        let request = SandboxRequest {
            writable: vec![cwd.clone()],
            hidden: vec![data.join("private"), cwd.join("missing/private")],
            ..SandboxRequest::default()
        };
        let plan = plan(&request, &cwd, std::slice::from_ref(&data));
        assert_eq!(
            plan.mounts.last(),
            Some(&MountStep::Tmpfs(data.join("private"))),
            "{plan:?}"
        );
        assert!(plan.mounts.contains(&bind(&data, true, true)), "{plan:?}");
        assert_eq!(
            plan.mounts
                .iter()
                .filter(|step| matches!(step, MountStep::Tmpfs(path) if path.ends_with("private")))
                .count(),
            1,
            "a missing one needs none: {plan:?}"
        );
        // In the sandbox's own temporary directory it is not seen at all.
        let outside = tempfile::tempdir_in("/tmp").unwrap();
        let hidden = std::fs::canonicalize(outside.path()).unwrap();
        let request = SandboxRequest {
            hidden: vec![hidden.clone()],
            ..request
        };
        let plan = super::plan(&request, &cwd, &[]);
        assert!(!plan.mounts.contains(&MountStep::Tmpfs(hidden)), "{plan:?}");
    }

    #[test]
    fn write_anywhere_binds_the_root_writable_with_no_private_directories() {
        let cwd = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(cwd.path()).unwrap();
        let request = SandboxRequest {
            write_anywhere: true,
            ..SandboxRequest::default()
        };
        let plan = plan(&request, &cwd, &[]);
        assert_eq!(plan.mounts[0], MountStep::Root { writable: true });
        assert!(
            !plan
                .mounts
                .iter()
                .any(|step| matches!(step, MountStep::Tmpfs(_))),
            "{plan:?}"
        );
    }
}
