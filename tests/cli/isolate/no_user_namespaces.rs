//! xcsh run where no user namespace can be created, as on a machine with
//! `user.max_user_namespaces = 0`: the first isolated pack's start fails
//! in xcsh's namespace engine and every pack runs in Landlock alone.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use crate::support::{path_without_bwrap, with_program};

/// Why packs run without namespaces there: the reason of their status
/// (`sandboxed (Landlock only: {CANNOT}; …)`).
pub const CANNOT: &str = "the namespace sandbox cannot be set up here (xcsh namespaces: cannot create the namespaces: ENOSPC: No space left on device)";

/// The line the agent logs when it finds out (on standard error, or the
/// REPL's terminal).
pub fn warning() -> String {
    format!("warning: {CANNOT}: isolated packs run in the Landlock sandbox alone")
}

/// `command` (its program, arguments, directory and environment) run in
/// a user namespace of its own (util-linux's `unshare`) whose limit of
/// user namespaces inside is 0, as `user.max_user_namespaces = 0` makes
/// it for a whole machine. It runs as root of that namespace, mapped to
/// the user running the tests. `unshare` and `sh` replace themselves
/// with the program (`exec`): it is the same process, with the same
/// descriptors and controlling terminal.
///
/// Only where the tests run as root (as CI runs them): there the
/// namespace maps root to root, and the owners xcsh checks on a pack's
/// path read as outside it. An ordinary user's namespace maps that user
/// alone, `/` reads as owned by the overflow user (65534), and xcsh would
/// refuse every pack; the test fails saying so instead.
pub fn without_user_namespaces(command: &Command) -> Command {
    assert!(
        rustix::process::geteuid().is_root(),
        "the tests where user namespaces are unavailable must run as root (as CI runs them): in an ordinary user's namespace `/` is owned by uid 65534 and xcsh refuses every pack under it"
    );
    let script = "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\"";
    let leading: [&OsStr; 6] = [
        "--user".as_ref(),
        "--map-root-user".as_ref(),
        "sh".as_ref(),
        "-c".as_ref(),
        script.as_ref(),
        "sh".as_ref(),
    ];
    let mut leading = leading.to_vec();
    leading.push(command.get_program());
    let mut wrapped = with_program(command, Path::new("unshare"), &leading);
    wrapped.env("PATH", path_without_bwrap());
    wrapped
}
