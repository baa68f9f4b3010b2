//! The namespace sandbox: a pack's process started under bubblewrap
//! (`bwrap`, the engine of Flatpak, and what Codex's and Claude Code's
//! Linux sandboxes run tools under), with Landlock kept inside it as a
//! second layer.
//!
//! What it sets up for one pack's process:
//!
//! - every namespace of its own (`--unshare-all`): no network but its own
//!   loopback unless granted `network` (`--share-net`), no view of or
//!   signal to any process outside, its own IPC and abstract sockets;
//! - the whole system read-only, `/dev` a minimal one (`null`, `zero`,
//!   `random`, …, no real device), `/proc` its own, `/tmp`, `/run` and the
//!   temporary directory private and empty (no socket of the user's there);
//! - the working directory writable (everything, with `write-anywhere`,
//!   and then no private directories), except what [`protected`] keeps:
//!   `.xcsh/` and `.git/` (empty placeholders where they do not exist yet,
//!   see [`placeholders`](super::placeholders)), xcsh's own directories,
//!   its binary and every pack library and directory, bound read-only,
//!   each in directories that cannot be renamed;
//! - `--die-with-parent` and its own PID namespace: when the agent ends, or
//!   kills the process (time-out, restart, session end), every process the
//!   pack started dies with it.
//!
//! bubblewrap is used where it is found on `PATH` and can create the
//! namespaces (found out by the first pack's start, see [`available`]);
//! elsewhere packs run in the Landlock sandbox alone.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use xcsh_isolate_protocol::SandboxRequest;

use super::protected::{self, Mount};

/// Where the agent's image is handed to `bwrap`, which executes it as
/// `/proc/self/fd/EXE_FD` inside the sandbox.
pub const EXE_FD: i32 = 4;

/// Why packs run without namespaces here: the reason a sandbox status
/// gives (`sandboxed (Landlock only: {reason}; …)`).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Unavailable {
    /// No `bwrap` on `PATH`.
    #[error("bubblewrap is not installed")]
    NotInstalled,
    /// A pack's start found that `bwrap` cannot create namespaces here.
    #[error("bubblewrap cannot create namespaces here ({line})")]
    CannotCreate {
        /// bubblewrap's own error line (`bwrap: …`).
        line: String,
    },
}

/// The `bwrap` to use, or why there is none: not on `PATH`, or found
/// unable to set up namespaces here ([`mark_unusable`]). No probe runs:
/// the first pack started under it is the probe (a start that fails in
/// bubblewrap's own set-up, before xcsh runs inside, marks it unusable and
/// starts the pack again without it).
pub fn available() -> Result<&'static Path, Unavailable> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    if let Some(why) = UNUSABLE.get() {
        return Err(why.clone());
    }
    FOUND
        .get_or_init(|| find_on_path("bwrap"))
        .as_deref()
        .ok_or(Unavailable::NotInstalled)
}

static UNUSABLE: OnceLock<Unavailable> = OnceLock::new();

/// Notes, for the rest of this agent's life, that bubblewrap failed to set
/// up a pack's namespaces, with its own error `line` (`bwrap: …`).
pub fn mark_unusable(line: &str) {
    let why = Unavailable::CannotCreate {
        line: line.to_owned(),
    };
    tracing::warn!("{why}: isolated packs run in the Landlock sandbox alone");
    let _ = UNUSABLE.set(why);
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
        .and_then(|path| std::fs::canonicalize(path).ok())
}

/// `bwrap`'s arguments for a process working in `cwd` under `request`,
/// running the image at [`EXE_FD`] with `args`, with `protected` (and the
/// records of `cwd`) kept read-only where they lie in what it may write
/// (see [`protected::mounts`]).
pub fn arguments(
    request: &SandboxRequest,
    cwd: &Path,
    protected: &[PathBuf],
    args: &[OsString],
) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    let mut push = |items: &[&OsStr]| out.extend(items.iter().map(|s| s.to_os_string()));
    push(&["--die-with-parent".as_ref(), "--new-session".as_ref()]);
    push(&["--unshare-all".as_ref()]);
    if request.network {
        push(&["--share-net".as_ref()]);
    }
    if request.write_anywhere {
        push(&["--bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    } else {
        push(&["--ro-bind".as_ref(), "/".as_ref(), "/".as_ref()]);
    }
    push(&["--dev".as_ref(), "/dev".as_ref()]);
    push(&["--proc".as_ref(), "/proc".as_ref()]);
    let writable: Vec<PathBuf> = if request.write_anywhere {
        vec![PathBuf::from("/")]
    } else {
        let temp = std::fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| "/tmp".into());
        for private in [Path::new("/tmp"), Path::new("/run"), temp.as_path()] {
            push(&["--tmpfs".as_ref(), private.as_os_str()]);
        }
        // Bound even where it may not be written: it may lie in one of
        // the private directories.
        let writes_here = request.writable.iter().any(|dir| dir == cwd);
        let bind = if writes_here { "--bind" } else { "--ro-bind" };
        push(&[bind.as_ref(), cwd.as_os_str(), cwd.as_os_str()]);
        writes_here.then(|| cwd.to_path_buf()).into_iter().collect()
    };
    let kept: Vec<PathBuf> = protected::records_of(cwd)
        .into_iter()
        .chain(protected.iter().cloned())
        .collect();
    // `-try`: a path removed since it was looked at (by the user, not
    // the pack, which has not started) needs no mount.
    for mount in protected::mounts(&writable, &kept) {
        let (flag, path) = match &mount {
            Mount::Pin(path) => ("--bind-try", path),
            Mount::ReadOnly(path) => ("--ro-bind-try", path),
        };
        push(&[flag.as_ref(), path.as_os_str(), path.as_os_str()]);
    }
    push(&["--chdir".as_ref(), cwd.as_os_str()]);
    let exe = format!("/proc/self/fd/{EXE_FD}");
    push(&["--".as_ref(), exe.as_ref()]);
    out.extend(args.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_working_directory_is_writable_but_its_records_are_not() {
        let cwd = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(cwd.path()).unwrap();
        std::fs::create_dir(cwd.join(".xcsh")).unwrap();
        let request = SandboxRequest {
            writable: vec![cwd.clone()],
            ..SandboxRequest::default()
        };
        let args = arguments(&request, &cwd, &[], &["pack-host".into()]);
        let text: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let at = |flag: &str, path: &Path| {
            text.windows(3)
                .position(|w| w[0] == flag && w[1] == path.to_string_lossy() && w[2] == w[1])
        };
        assert!(text.contains(&"--unshare-all".to_owned()));
        assert!(!text.contains(&"--share-net".to_owned()));
        assert!(at("--ro-bind", Path::new("/")).is_some());
        let writable = at("--bind", &cwd).unwrap();
        let records = at("--ro-bind-try", &cwd.join(".xcsh")).unwrap();
        assert!(records > writable, "bound read-only over the writable one");
        assert!(at("--ro-bind-try", &cwd.join(".git")).is_none(), "absent");
        assert_eq!(text[text.len() - 2..], ["/proc/self/fd/4", "pack-host"]);
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
        let text: Vec<String> = arguments(&request, &cwd, std::slice::from_ref(&exe), &[])
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let triple = |flag: &str, path: &Path| {
            text.windows(3)
                .position(|w| w[0] == flag && w[1] == path.to_string_lossy() && w[2] == w[1])
        };
        let writable = triple("--bind", &cwd).unwrap();
        let pinned = triple("--bind-try", &cwd.join("target")).unwrap();
        let pinned_deeper = triple("--bind-try", &cwd.join("target/debug")).unwrap();
        let exe_at = triple("--ro-bind-try", &exe).unwrap();
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
        let text: Vec<String> = arguments(&request, &cwd, &[], &[])
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(!text.iter().any(|a| a == "--bind"), "{text:?}");
        let cwd = cwd.to_string_lossy();
        assert!(
            text.windows(3)
                .any(|w| w[0] == "--ro-bind" && w[1] == cwd && w[2] == cwd),
            "{text:?}"
        );
    }
}
