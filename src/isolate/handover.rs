//! Starting a pack's process from what the agent checked: the agent's own
//! image (`/proc/self/exe`, never a path a pack could replace), handed the
//! sealed copy of the pack's library at [`PACK_FD`], which it maps instead
//! of opening anything by path.

use std::path::Path;
use std::process::Command;

use command_fds::{CommandFdExt as _, FdMapping};
use xcsh_isolate_protocol::PACK_FD;
use xcsh_loader::SealedPack;

/// A command running `exe` (the agent's own image when `None`) with `pack`
/// at [`PACK_FD`]. The descriptor is duplicated close-on-exec, so no other
/// process the agent starts meanwhile inherits it.
///
/// # Errors
///
/// One line: the descriptor could not be duplicated.
pub fn command(exe: Option<&Path>, pack: &SealedPack) -> Result<Command, String> {
    let mut command = match exe {
        Some(exe) => Command::new(exe),
        None => own_image()?,
    };
    let descriptor = pack
        .descriptor()
        .try_clone_to_owned()
        .map_err(|e| format!("cannot hand its library over: {e}"))?;
    command
        .fd_mappings(vec![FdMapping {
            parent_fd: descriptor,
            child_fd: PACK_FD,
        }])
        .map_err(|e| format!("cannot hand its library over: {e}"))?;
    Ok(command)
}

/// The image this process runs, whatever is at its path now.
#[cfg(target_os = "linux")]
fn own_image() -> Result<Command, String> {
    let mut command = Command::new("/proc/self/exe");
    std::os::unix::process::CommandExt::arg0(&mut command, "xcsh");
    Ok(command)
}

#[cfg(not(target_os = "linux"))]
fn own_image() -> Result<Command, String> {
    std::env::current_exe()
        .map(Command::new)
        .map_err(|e| format!("cannot find the xcsh executable to run it: {e}"))
}
