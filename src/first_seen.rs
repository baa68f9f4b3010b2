//! The first-seen check of in-process packs, in a child process: a
//! library this user has not opened before is opened first by
//! `xcsh pack-probe LIBRARY`, so that load-time code that aborts or a
//! factory that crashes kills that child, not the agent, and the pack is
//! reported and skipped:
//!
//! ```text
//! Failed to load tool pack /p/libfixture_load_abort.so: its load-time code killed the process (SIGABRT)
//! ```
//!
//! The loader remembers each outcome by SHA-256 and file identity in the
//! user's cache directory ([`xcsh_loader::FirstSeen`]), so a build of a
//! pack is checked once. Packs that run isolated, and installed packs
//! (checked in a child by `xcsh pack add`), skip it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use xcsh_loader::{FirstSeen, HostBinding, ProbeOutcome};

/// The subcommand the check runs.
pub const SUBCOMMAND: &str = "pack-probe";

/// Where outcomes are kept: `first-seen` in the xcsh cache directory
/// (`~/.cache/xcsh` on Linux, or `XCSH_CACHE_DIR`).
pub fn cache_dir() -> Option<PathBuf> {
    xcsh_sources::UserDirs::cache().map(|dir| dir.join("first-seen"))
}

/// The check agents run: this executable's `pack-probe`, stopped after
/// `limit` (the opening of a pack counts as its first call's work).
pub fn check(limit: Option<Duration>) -> FirstSeen {
    FirstSeen::new(cache_dir(), Arc::new(move |path| probe(path, limit)))
}

/// Opens `library` in a child process and says how the child ended.
fn probe(library: &Path, limit: Option<Duration>) -> ProbeOutcome {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(error) => return ProbeOutcome::Unavailable(format!("no xcsh executable: {error}")),
    };
    let mut command = Command::new(exe);
    command
        .arg(SUBCOMMAND)
        .arg(library)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // Its own process group: a Ctrl-C meant for the agent is not its.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => return ProbeOutcome::Unavailable(format!("cannot start it: {error}")),
    };
    let started = Instant::now();
    let mut pause = Duration::from_micros(500);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return outcome(status),
            Ok(None) => {}
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return ProbeOutcome::Unavailable(format!("cannot wait for it: {error}"));
            }
        }
        if let Some(limit) = limit
            && started.elapsed() >= limit
        {
            let _ = child.kill();
            let _ = child.wait();
            return ProbeOutcome::Failed(format!(
                "its load-time code did not finish within {limit:?} (stopped)"
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// How a `pack-probe` that ended with `status` went.
fn outcome(status: ExitStatus) -> ProbeOutcome {
    if status.success() {
        return ProbeOutcome::Survived;
    }
    if let Some(code) = status.code() {
        return ProbeOutcome::Killed(format!(
            "its load-time code ended the process with status {code}"
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            let name = nix::sys::signal::Signal::try_from(signal)
                .map_or_else(|_| signal.to_string(), |name| name.as_str().to_owned());
            return ProbeOutcome::Killed(format!("its load-time code killed the process ({name})"));
        }
    }
    ProbeOutcome::Killed(format!("its load-time code ended the process ({status})"))
}

/// The child side: opens `library` as the agent would (its checks, its
/// factory), then returns so the process exits with status 0. Whether
/// the loader accepted it does not matter here: the agent's own load
/// reports that. Crash reports are off: a crash here ends only this
/// process, and the agent says so.
pub fn probe_here(library: &Path) {
    xcsh_loader::disable_crash_reports();
    let session = xcsh_core::Session::new(".");
    let report = xcsh_loader::load_packs_with(
        &session,
        &HostBinding::without_store("."),
        std::slice::from_ref(&library.to_path_buf()),
    );
    tracing::debug!(?report, "first-seen check");
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::process::ExitStatusExt as _;

    use super::*;

    #[test]
    fn a_signal_or_an_exit_status_is_named() {
        assert_eq!(outcome(ExitStatus::from_raw(0)), ProbeOutcome::Survived);
        assert_eq!(
            outcome(ExitStatus::from_raw(6)),
            ProbeOutcome::Killed("its load-time code killed the process (SIGABRT)".into())
        );
        assert_eq!(
            outcome(ExitStatus::from_raw(3 << 8)),
            ProbeOutcome::Killed("its load-time code ended the process with status 3".into())
        );
    }
}
