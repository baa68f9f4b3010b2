//! Opening the one pack this process serves: its limits and sandbox
//! first (reported to the agent before any of the pack's code runs), then
//! the sealed library the agent handed over, opened with the same loader
//! and checks as in the agent.

use std::sync::Arc;

use xcsh_core::{PackOptions, Session, Tool};
use xcsh_isolate_protocol::{OpenPack, Opened, PACK_FD, Reply, SandboxStatus, ToolSpec, convert};
use xcsh_loader::{HostBinding, LoadError, SealedPack};

use crate::sandbox::{self, SandboxError};
use crate::writer::Writer;

/// Why the pack was not opened: the agent is told in one line
/// ([`Reply::OpenFailed`]), and the process exits.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum OpenError {
    /// The process could not limit or sandbox itself.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The sandbox came out unconfined, and the config requires one.
    #[error("refusing to run it unconfined ({reason}): the config sets require_sandbox")]
    Unconfined {
        /// Why the kernel left it unconfined.
        reason: String,
    },
    /// No sealed library was handed over at [`PACK_FD`], or it cannot be
    /// read.
    #[error(transparent)]
    Library(LoadError),
    /// The agent's pack configuration is not JSON.
    #[error("the agent sent unreadable pack configuration")]
    Config(#[source] serde_json::Error),
    /// The loader refused the pack (its one-line cause).
    #[error(transparent)]
    Load(LoadError),
    /// The pack loaded but registered no tools.
    #[error("the pack registered no tools")]
    NoTools,
}

/// An opened pack: its session (the store its pushes land in), its tools,
/// and what the agent is told.
pub(crate) type OpenedPack = (Session, Vec<Arc<dyn Tool>>, Opened);

/// Sets the limits, enters the sandbox, tells the agent which (before any
/// of the pack's code runs), then maps the sealed library the agent handed
/// over and opens the pack.
pub(crate) fn open_pack(open: &OpenPack, writer: &Writer) -> Result<OpenedPack, OpenError> {
    if let Some(limit) = open.memory_limit {
        sandbox::limit_memory(limit)?;
    }
    let sandbox = sandbox::enter(&open.sandbox)?;
    if open.sandbox.required
        && let SandboxStatus::Unconfined { reason, .. } = &sandbox
        && !(open.sandbox.network && open.sandbox.write_anywhere)
    {
        return Err(OpenError::Unconfined {
            reason: reason.clone(),
        });
    }
    writer.send(&Reply::Sandboxed(sandbox.clone()));
    let pack = SealedPack::inherited(open.path.clone(), PACK_FD).map_err(OpenError::Library)?;
    let session = Session::new(&open.cwd);
    session.set_pack_options(PackOptions {
        allow_outside_root: open.allow_outside_root,
        configs: serde_json::from_str(&open.configs_json).map_err(OpenError::Config)?,
    });
    let (report, library) = pack.load(&session, &HostBinding::for_session(&session));
    if let Some(failure) = report.failures.into_iter().next() {
        return Err(OpenError::Load(failure.error));
    }
    let loaded = report.loaded.into_iter().next().ok_or(OpenError::NoTools)?;
    let tools: Vec<Arc<dyn Tool>> = session
        .tools()
        .into_iter()
        .filter(|tool| loaded.tools.iter().any(|name| name == tool.name()))
        .collect();
    let specs = tools
        .iter()
        .map(|tool| ToolSpec {
            name: tool.name().to_owned(),
            label: tool.label().to_owned(),
            description: tool.description().to_owned(),
            parameters_json: tool.parameters().to_string(),
            hints: convert::hints_to_wire(tool.hints()),
        })
        .collect();
    let abi_version = library
        .map(|library| library.abi_version().to_owned())
        .unwrap_or_default();
    let opened = Opened {
        name: loaded.name,
        version: loaded.version,
        abi_version,
        path: loaded.path,
        tools: specs,
        sandbox,
    };
    Ok((session, tools, opened))
}

#[cfg(test)]
mod tests {
    use xcsh_isolate_protocol::error_line;

    use super::*;

    #[test]
    fn the_agent_reads_each_reason_as_one_line_with_its_cause_once() {
        let config = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        assert_eq!(
            error_line(&OpenError::Config(config)),
            "the agent sent unreadable pack configuration: EOF while parsing an object at line 1 column 1"
        );
        let unconfined = OpenError::Unconfined {
            reason: "this kernel has no Landlock".to_owned(),
        };
        assert_eq!(
            error_line(&unconfined),
            "refusing to run it unconfined (this kernel has no Landlock): the config sets require_sandbox"
        );
        let memory = OpenError::from(SandboxError::MemoryLimit {
            bytes: 1024,
            source: nix::errno::Errno::EPERM,
        });
        assert_eq!(
            memory.to_string(),
            "cannot set the memory limit of 1024 bytes"
        );
        assert_eq!(
            error_line(&memory),
            "cannot set the memory limit of 1024 bytes: EPERM: Operation not permitted"
        );
    }

    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    #[test]
    fn a_cause_that_prints_its_own_cause_is_not_said_twice() {
        let refused = seccompiler::Error::Seccomp(std::io::Error::from_raw_os_error(1));
        let error = OpenError::from(SandboxError::from(crate::seccomp::SeccompError::Install(
            refused,
        )));
        assert_eq!(
            error_line(&error),
            "cannot set up the seccomp filter: Error calling `seccomp`: Operation not permitted (os error 1)"
        );
    }
}
