//! What starting a pack's process needs: which image, which sealed
//! library, what to open and how long it may take.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use xcsh_isolate_protocol::OpenPack;
use xcsh_loader::SealedPack;

use super::protected::Protected;

/// What starting a pack's process needs.
#[derive(Clone, Debug)]
pub struct StartSpec {
    /// The `xcsh` executable; `None`: this process's own image (see
    /// [`handover`](super::handover)).
    pub exe: Option<PathBuf>,
    /// The pack's library, checked and sealed by the agent: every process
    /// of the pack maps these bytes.
    pub pack: Arc<SealedPack>,
    /// `-v` count for its log output.
    pub verbosity: u8,
    /// What it opens and how it sandboxes itself.
    pub open: OpenPack,
    /// The largest frame read from the process (see
    /// [`IsolationPolicy::frame_limit`](super::IsolationPolicy::frame_limit)).
    pub frame_limit: usize,
    /// What its sandbox keeps read-only beyond the working directory's
    /// records.
    pub protected: Protected,
    /// The variables of the agent's environment granted to it (see
    /// [`environment`](super::environment)); `None`: all of them, for a
    /// check that writes nothing and reaches nothing (`xcsh pack add`).
    pub env: Option<Vec<String>>,
    /// Never start it in namespaces of its own (`namespaces = false`).
    pub without_namespaces: bool,
    /// Refuse to start it without namespaces of its own (`require_sandbox
    /// = "full"`).
    pub require_namespaces: bool,
    /// How long it may take to open the pack (load-time code, checks and
    /// factory) and answer; past it the process is killed. `None`: no
    /// limit.
    pub open_limit: Option<Duration>,
}
