//! Starting a pack's process from what the agent checked: the agent's own
//! image (`/proc/self/exe`, never a path a pack could replace), handed the
//! sealed copy of the pack's library at [`PACK_FD`], which it maps instead
//! of opening anything by path.

use std::ffi::OsString;
use std::process::Command;
use std::sync::{Mutex, OnceLock, mpsc};

use command_fds::{CommandFdExt as _, FdMapping};
use xcsh_isolate_protocol::PACK_FD;

use super::bwrap;
use super::start_spec::StartSpec;

/// The command that starts the process `spec` describes, with `args`
/// (the `pack-host` subcommand and its flags), and whether it runs in
/// namespaces of its own ([`bwrap`]): there, unless the pack is granted
/// both `network` and `write-anywhere` (then it is unconfined on purpose),
/// and `bwrap` is usable. The descriptors are duplicated close-on-exec, so
/// no other process the agent starts meanwhile inherits them.
///
/// # Errors
///
/// One line: a descriptor could not be duplicated, or the image opened.
pub fn command(spec: &StartSpec, args: &[OsString]) -> Result<(Command, bool), String> {
    let hand_over = |e: std::io::Error| format!("cannot hand its library over: {e}");
    let mut mappings = vec![FdMapping {
        parent_fd: spec
            .pack
            .descriptor()
            .try_clone_to_owned()
            .map_err(hand_over)?,
        child_fd: PACK_FD,
    }];
    let request = &spec.open.sandbox;
    let unconfined = request.network && request.write_anywhere;
    let bwrap = if unconfined {
        None
    } else {
        match bwrap::available() {
            Ok(program) => Some(program),
            Err(why) => {
                tracing::debug!("isolated packs run in Landlock alone: {why}");
                None
            }
        }
    };
    let mut command = match bwrap {
        Some(program) => {
            let image = std::fs::File::open(spec.exe.as_deref().unwrap_or(OWN_IMAGE.as_ref()))
                .map_err(|e| format!("cannot open the xcsh executable to run it: {e}"))?;
            mappings.push(FdMapping {
                parent_fd: image.into(),
                child_fd: bwrap::EXE_FD,
            });
            let mut command = Command::new(program);
            command.args(bwrap::arguments(request, &spec.open.cwd, args));
            command
        }
        None => {
            let mut command = match spec.exe.as_deref() {
                Some(exe) => Command::new(exe),
                None => own_image()?,
            };
            command.args(args);
            command
        }
    };
    command
        .fd_mappings(mappings)
        .map_err(|e| format!("cannot hand its library over: {e}"))?;
    Ok((command, bwrap.is_some()))
}

/// This process's own image, whatever is at its path now.
const OWN_IMAGE: &str = "/proc/self/exe";

/// The image this process runs, whatever is at its path now.
#[cfg(target_os = "linux")]
fn own_image() -> Result<Command, String> {
    let mut command = Command::new(OWN_IMAGE);
    std::os::unix::process::CommandExt::arg0(&mut command, "xcsh");
    Ok(command)
}

#[cfg(not(target_os = "linux"))]
fn own_image() -> Result<Command, String> {
    std::env::current_exe()
        .map(Command::new)
        .map_err(|e| format!("cannot find the xcsh executable to run it: {e}"))
}

/// Starts `command` from one thread that lives as long as the agent.
///
/// `bwrap --die-with-parent` asks the kernel to kill the sandbox when its
/// parent goes, and Linux counts the *thread* that started it as the
/// parent: a process started from a short-lived thread (packs start in
/// parallel, each on a thread of its own) would be killed when that thread
/// returned.
///
/// # Errors
///
/// The spawn's own error, or the spawning thread could not be started.
pub fn spawn(command: Command) -> std::io::Result<std::process::Child> {
    type Job = (Command, mpsc::Sender<std::io::Result<std::process::Child>>);
    static SPAWNER: OnceLock<Mutex<Option<mpsc::Sender<Job>>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (jobs, queue) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new()
            .name("xcsh-pack-spawner".into())
            .spawn(move || {
                for (mut command, reply) in queue {
                    let _ = reply.send(command.spawn());
                }
            });
        Mutex::new(started.ok().map(|_| jobs))
    });
    let (reply, answer) = mpsc::channel();
    let sent = xcsh_core::sync::lock(spawner)
        .as_ref()
        .is_some_and(|jobs| jobs.send((command, reply)).is_ok());
    if !sent {
        return Err(std::io::Error::other(
            "cannot start the thread that starts packs",
        ));
    }
    answer
        .recv()
        .unwrap_or_else(|_| Err(std::io::Error::other("the thread that starts packs ended")))
}
