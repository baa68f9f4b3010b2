//! Starting a pack's process from what the agent checked: the agent's own
//! image (`/proc/self/exe`, never a path a pack could replace), handed the
//! sealed copy of the pack's library at [`PACK_FD`], which it maps instead
//! of opening anything by path.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Mutex, OnceLock, mpsc};

use command_fds::{CommandFdExt as _, FdMapping};
use xcsh_isolate_protocol::{NAMESPACES_OPTION, PACK_FD};

use super::namespaces::{self, Engine};
use super::placeholders::Placeholders;
use super::start_error::StartError;
use super::start_spec::StartSpec;
use super::{bwrap, environment, protected};

/// The command that starts the process `spec` describes, with `args`
/// (the `pack-host` subcommand and its flags), and whether it runs in
/// namespaces of its own ([`namespaces`]): there, unless the pack is
/// granted both `network` and `write-anywhere` (then it is unconfined on
/// purpose), or they are turned off or found unusable here. It gets only the [`environment`] granted to it
/// (all of it for a check).
/// The descriptors are duplicated close-on-exec, so no other process the
/// agent starts meanwhile inherits them.
///
/// # Errors
///
/// A descriptor could not be duplicated, or the image opened; a protected
/// directory could not be kept (made in `placeholders`, which must live
/// until the process has ended); namespaces are required
/// (`require_sandbox = "full"`) and unavailable.
pub fn command(
    spec: &StartSpec,
    args: &[OsString],
    placeholders: &Placeholders,
) -> Result<(Command, Namespaces), StartError> {
    let mut mappings = vec![FdMapping {
        parent_fd: spec
            .pack
            .descriptor()
            .try_clone_to_owned()
            .map_err(StartError::HandOver)?,
        child_fd: PACK_FD,
    }];
    let request = &spec.open.sandbox;
    let namespaces = if request.network && request.write_anywhere {
        Namespaces::NotWanted
    } else if spec.without_namespaces {
        Namespaces::Unavailable("the config sets namespaces = false".to_owned())
    } else {
        match namespaces::available() {
            Ok(engine) => Namespaces::Entered(engine),
            Err(why) => Namespaces::Unavailable(why.to_string()),
        }
    };
    if spec.require_namespaces {
        let missing = match &namespaces {
            Namespaces::Entered(_) => None,
            Namespaces::Unavailable(why) => Some(why.as_str()),
            Namespaces::NotWanted => Some("granted network and write-anywhere"),
        };
        if let Some(why) = missing {
            return Err(StartError::NamespacesRequired {
                why: why.to_owned(),
            });
        }
    }
    let mut command = match &namespaces {
        Namespaces::Entered(engine) => {
            let kept = kept_paths(spec, placeholders)?;
            let plan = namespaces::plan(request, &spec.open.cwd, &kept);
            match engine {
                Engine::BuiltIn => {
                    let mut command = match spec.exe.as_deref() {
                        Some(exe) => Command::new(exe),
                        None => own_image()?,
                    };
                    let mut option = OsString::from(NAMESPACES_OPTION);
                    option.push("=");
                    option.push(serde_json::to_string(&plan).map_err(StartError::Plan)?);
                    command.args(args).arg(option);
                    command
                }
                Engine::Bubblewrap(program) => {
                    let image =
                        std::fs::File::open(spec.exe.as_deref().unwrap_or(OWN_IMAGE.as_ref()))
                            .map_err(StartError::OpenImage)?;
                    mappings.push(FdMapping {
                        parent_fd: image.into(),
                        child_fd: bwrap::EXE_FD,
                    });
                    let mut command = Command::new(program);
                    command.args(bwrap::arguments(&plan, args));
                    command
                }
            }
        }
        _ => {
            let mut command = match spec.exe.as_deref() {
                Some(exe) => Command::new(exe),
                None => own_image()?,
            };
            command.args(args);
            command
        }
    };
    if let Some(granted) = &spec.env {
        command
            .env_clear()
            .envs(environment::passed(std::env::vars_os(), granted));
    }
    command
        .fd_mappings(mappings)
        .map_err(StartError::MapDescriptors)?;
    Ok((command, namespaces))
}

/// Whether a pack's process runs in namespaces of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Namespaces {
    /// It does, set up by this engine.
    Entered(Engine),
    /// It does not, because namespaces are turned off or unusable here:
    /// why.
    Unavailable(String),
    /// It is granted everything, so it runs unconfined on purpose.
    NotWanted,
}

impl Namespaces {
    /// True for [`Entered`](Self::Entered).
    pub fn entered(&self) -> bool {
        matches!(self, Self::Entered(_))
    }
}

/// What the sandbox of `spec`'s process keeps read-only: the policy's
/// paths, xcsh's own directories (created empty where missing, as are the
/// working directory's records, wherever the pack could otherwise create
/// them: `placeholders`) and the agent's binary.
fn kept_paths(spec: &StartSpec, placeholders: &Placeholders) -> Result<Vec<PathBuf>, StartError> {
    let request = &spec.open.sandbox;
    let cwd = &spec.open.cwd;
    let writes_here = request.write_anywhere || request.writable.iter().any(|dir| dir == cwd);
    let creatable = protected::records_of(cwd)
        .into_iter()
        .chain(spec.protected.own_dirs.iter().cloned());
    for dir in creatable {
        let dir = protected::resolved(&dir);
        // Existing ones too: their creator (another pack process) then
        // leaves them while this one runs.
        let reachable = request.write_anywhere || (writes_here && dir.starts_with(cwd));
        // A `.git` file (a worktree's pointer) is bound as it is.
        if !reachable || (dir.exists() && !dir.is_dir()) {
            continue;
        }
        match placeholders.ensure(&dir) {
            Ok(()) => {}
            // What the agent may not create, the pack may not either.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) => {}
            Err(source) => return Err(StartError::KeepProtected { dir, source }),
        }
    }
    let own_binary = std::env::current_exe().ok();
    Ok(spec
        .protected
        .own_dirs
        .iter()
        .chain(&spec.protected.paths)
        .chain(spec.exe.iter())
        .chain(own_binary.iter())
        .cloned()
        .collect())
}

/// This process's own image, whatever is at its path now.
const OWN_IMAGE: &str = "/proc/self/exe";

/// The image this process runs, whatever is at its path now.
#[cfg(target_os = "linux")]
fn own_image() -> Result<Command, StartError> {
    let mut command = Command::new(OWN_IMAGE);
    std::os::unix::process::CommandExt::arg0(&mut command, "xcsh");
    Ok(command)
}

#[cfg(not(target_os = "linux"))]
fn own_image() -> Result<Command, StartError> {
    std::env::current_exe()
        .map(Command::new)
        .map_err(StartError::FindImage)
}

/// Starts `command` from one thread that lives as long as the agent.
///
/// The namespace sandbox's first process asks the kernel to kill it when
/// its parent goes (`PR_SET_PDEATHSIG`, as `bwrap --die-with-parent`),
/// and Linux counts the *thread* that started it as the parent: a process started from a short-lived thread (packs start in
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
