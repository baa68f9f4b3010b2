//! One pack in one test session.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;
use xcsh_core::sync::lock;
use xcsh_core::{
    CallLimits, CancellationToken, PendingEntry, ProviderCapabilities, RESOLVE_TOOL_NAME, Session,
    Tool, ToolCall, ToolChoice, ToolContext, ToolOutput, ToolResult,
};
use xcsh_loader::{HostBinding, create_tools_in_process_v2};
use xcsh_plugin_api::Factory;
use xcsh_safe_fs::fault::FaultGuard;

use crate::setup::Setup;
use crate::{PackTestError, PendingInfo};

/// A pack's tools in a session of their own, driven the way a model would.
///
/// Every call goes through the session as in the agent: unknown tools and
/// arguments the schema refuses give error results without reaching the
/// pack, panics become error results, pushes land on the session's stack
/// and queue reminders. Dropping it ends the session as every front end
/// does: what is still pending is discarded through its reject code.
pub struct PackTest {
    session: Session,
    name: String,
    dir: PathBuf,
    // Kept alive for the test; removed on drop, after the session ended.
    _temporary: Option<TempDir>,
    progress: Arc<Mutex<Vec<ToolOutput>>>,
    calls: AtomicU64,
}

impl PackTest {
    /// Calls `factory` for a session working in a fresh temporary directory
    /// (removed when the `PackTest` drops) and registers the pack's tools.
    /// `name` is the pack's name (its crate name, as the agent reports it).
    ///
    /// # Errors
    ///
    /// The directory cannot be created, the factory fails or returns no
    /// tools, or a tool is one the agent would refuse to load.
    pub fn new(name: &str, factory: Factory) -> Result<Self, PackTestError> {
        let temporary = tempfile::Builder::new()
            .prefix("xcsh-pack-test-")
            .tempdir()
            .map_err(PackTestError::WorkDir)?;
        let dir = temporary.path().to_path_buf();
        Self::start(name, factory, dir, Some(temporary), &Setup::default())
    }

    /// Like [`new`](Self::new), working in `dir` (which the test owns).
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn in_dir(
        name: &str,
        factory: Factory,
        dir: impl Into<PathBuf>,
    ) -> Result<Self, PackTestError> {
        Self::start(name, factory, dir.into(), None, &Setup::default())
    }

    pub(crate) fn start(
        name: &str,
        factory: Factory,
        dir: PathBuf,
        temporary: Option<TempDir>,
        setup: &Setup,
    ) -> Result<Self, PackTestError> {
        let session = Session::new(&dir);
        session.set_pack_options(setup.settings(name));
        let binding = HostBinding::for_session(&session);
        // What the export macro's `create_tools` entry serves a host.
        let tools = create_tools_in_process_v2(
            name,
            setup.config_schema,
            |api| xcsh_plugin_api::in_process::create_tools_v2(factory, api),
            &binding,
        )
        .map_err(|source| PackTestError::Load {
            name: name.to_owned(),
            source,
        })?;
        for tool in tools {
            session
                .register_tool(Arc::new(tool))
                .map_err(|source| PackTestError::Register {
                    name: name.to_owned(),
                    source,
                })?;
        }
        Ok(Self {
            session,
            name: name.to_owned(),
            dir,
            _temporary: temporary,
            progress: Arc::default(),
            calls: AtomicU64::new(0),
        })
    }

    /// The same pack with every later call (`execute`, and `apply` or
    /// `reject` through `resolve`) limited to `limit`, as `xcsh
    /// --tool-timeout` limits them: a call past it gets the error result
    /// `Tool {name} timed out after {limit}` (`Apply failed: apply timed out
    /// after {limit}` for an apply, which leaves the action pending), and
    /// calls run on threads of their own, as in the agent.
    pub fn with_time_limit(self, limit: Duration) -> Self {
        let limits = CallLimits {
            time: Some(limit),
            ..self.session.limits()
        };
        Self {
            session: self.session.with_limits(limits),
            ..self
        }
    }

    /// The session's working directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `contents` to `relative` under the working directory,
    /// creating directories as needed, and returns its path.
    ///
    /// # Panics
    ///
    /// If the file cannot be written: this is set-up for a test.
    pub fn write(&self, relative: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
        }
        std::fs::write(&path, contents)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }

    /// Calls the tool `tool` with JSON `arguments`, as the model would.
    /// Progress the tool reports is kept for [`progress`](Self::progress).
    pub fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.call_with_cancellation(tool, arguments, &CancellationToken::new())
    }

    /// Like [`call`](Self::call), the call seeing `cancellation` as its
    /// flag (`ToolContext::is_cancelled`): cancel it before the call, or
    /// from another thread while it runs, to test how the tool stops early.
    /// A call that runs past the [time limit](Self::with_time_limit) is
    /// cancelled too, as in the agent.
    pub fn call_with_cancellation(
        &self,
        tool: &str,
        arguments: Value,
        cancellation: &CancellationToken,
    ) -> ToolResult {
        let id = format!("call-{}", self.calls.fetch_add(1, Ordering::Relaxed) + 1);
        let progress = Arc::clone(&self.progress);
        let context = ToolContext::new(id.clone(), self.dir.clone())
            .with_progress(Arc::new(move |partial: &ToolOutput| {
                lock(&progress).push(partial.clone())
            }))
            .with_cancellation(cancellation.clone());
        self.session
            .execute_with(&ToolCall::new(id, tool, arguments), context)
    }

    /// Calls `resolve` with `"action": "apply"`: applies the newest pending
    /// action.
    pub fn apply(&self, reason: &str) -> ToolResult {
        self.call(
            RESOLVE_TOOL_NAME,
            json!({"action": "apply", "reason": reason}),
        )
    }

    /// Calls `resolve` with `"action": "discard"`: discards the newest
    /// pending action through its reject code.
    pub fn discard(&self, reason: &str) -> ToolResult {
        self.call(
            RESOLVE_TOOL_NAME,
            json!({"action": "discard", "reason": reason}),
        )
    }

    /// The labels of the pending actions, newest first.
    pub fn pending_labels(&self) -> Vec<String> {
        self.session
            .store()
            .views()
            .into_iter()
            .map(|view| view.label)
            .collect()
    }

    /// The newest pending action, with its source and details: the one
    /// `resolve` acts on next.
    pub fn newest_pending(&self) -> Option<PendingInfo> {
        self.session.store().peek().as_ref().map(info)
    }

    /// Every pending action, with its source and details, newest first
    /// (the order `resolve` takes them in).
    pub fn pending(&self) -> Vec<PendingInfo> {
        self.session.store().entries().iter().map(info).collect()
    }

    /// The hidden reminders queued for the model since the last call of
    /// this method (one per push), removed from the queue.
    pub fn take_reminders(&self) -> Vec<String> {
        self.session
            .take_messages()
            .into_iter()
            .filter(|message| message.hidden)
            .map(|message| message.text)
            .collect()
    }

    /// The tool choice of the next model request: `resolve` while anything
    /// is pending, else `auto`.
    pub fn tool_choice(&self) -> ToolChoice {
        self.session.tool_choice(ProviderCapabilities::default())
    }

    /// The pack's tools as the host registered them (schema tidied, hints
    /// read), in the pack's order; `resolve` is left out.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.session
            .tools()
            .into_iter()
            .filter(|tool| tool.name() != RESOLVE_TOOL_NAME)
            .collect()
    }

    /// The names of the tools offered to the model right now (`resolve`
    /// only while something is pending).
    pub fn offered_tools(&self) -> Vec<String> {
        self.session
            .offered_tools()
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    }

    /// The partial results the pack's tools reported so far, in order.
    pub fn progress(&self) -> Vec<ToolOutput> {
        lock(&self.progress).clone()
    }

    /// Ends the session now, as a front end does when it ends: every
    /// pending action is discarded through its reject code with the reason
    /// [`SESSION_ENDED`](crate::SESSION_ENDED). Returns how many were.
    pub fn end(&self) -> usize {
        self.session.end()
    }

    /// Makes the `nth` write (from 1) of files under the working directory
    /// fail with `no space left on device (injected by the test)`, once,
    /// until the guard drops: for testing that an apply writing through
    /// [`xcsh_plugin_api::fs::WriteSet`] (as `ast_edit` does) changes no
    /// file when a write fails half-way, and leaves its action pending.
    /// Writes the pack makes by other means are not affected.
    pub fn fail_nth_write(&self, nth: usize) -> FaultGuard {
        xcsh_safe_fs::fault::fail_nth_write(&self.dir, nth)
    }

    /// The session itself, for anything this type does not offer.
    pub fn session(&self) -> &Session {
        &self.session
    }
}

fn info(entry: &PendingEntry) -> PendingInfo {
    let action = entry.action();
    PendingInfo {
        label: action.label().to_owned(),
        source_tool_name: action.source_tool_name().to_owned(),
        details: action.details().cloned(),
    }
}

impl fmt::Debug for PackTest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackTest")
            .field("pack", &self.name)
            .field("dir", &self.dir)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}
