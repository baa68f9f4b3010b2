//! A session: a tool registry, a pending-action store, and the steering that
//! sends the model to `resolve` while anything is pending.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use serde::{Deserialize, Serialize};
use xcsh_tool_types::ToolOutput;
use xcsh_tool_types::sync::{lock, read, write};

use crate::apply_observer::ApplyObserver;
use crate::approval::{Approvals, Approver, Journal, JournalEvent, Origin, Policy, PolicyFn};
use crate::call_run::one_call::run_one;
use crate::call_run::prepared::CallHost;
use crate::call_run::runner::{Runner, SharedRunner};
use crate::limits::CallLimits;
use crate::output::ToolResult;
use crate::pack_options::PackOptions;
use crate::panic::catch;
use crate::pending::{PendingActionStore, PendingEntry, Subscription};
use crate::registry::{RegisteredTool, RegistryError, ToolRegistry};
use crate::resolve::{RESOLVE_TOOL_NAME, ResolveTool, plainly_valid};
use crate::tool::{Tool, ToolCall, ToolContext};
use crate::tool_choice::{ProviderCapabilities, ToolChoice};

/// The hidden message queued for the model on every push.
pub const PREVIEW_REMINDER: &str = "<system-reminder>\nThis is a preview. Call the `resolve` tool to apply or discard these changes.\n</system-reminder>";

/// A message the session queued for the next model request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionMessage {
    /// The text.
    pub text: String,
    /// Hidden messages go to the model but are not shown to the user.
    pub hidden: bool,
}

/// One agent session.
///
/// Every session has a store and a registered `resolve` tool. Tool calls run
/// by name with JSON arguments, validated against the tool's schema first;
/// a failing or panicking tool gives an error result and the session goes on.
/// Every call runs under the session's [`CallLimits`]: a time limit (tool
/// calls, and the apply and reject code `resolve` runs) and a cap on the
/// size of each result.
pub struct Session {
    cwd: PathBuf,
    store: Arc<PendingActionStore>,
    runner: SharedRunner,
    registry: RwLock<ToolRegistry>,
    messages: Arc<Mutex<Vec<SessionMessage>>>,
    queued_choices: Mutex<VecDeque<ToolChoice>>,
    approvals: Arc<Approvals>,
    pack_options: RwLock<Arc<PackOptions>>,
    _reminders: Subscription,
}

impl Session {
    /// A session working in `cwd` with an empty store and `resolve` registered.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let store = Arc::new(PendingActionStore::new());
        let messages = Arc::new(Mutex::new(Vec::new()));
        let queue = Arc::clone(&messages);
        let reminders = store.subscribe(move |_| {
            lock(&queue).push(SessionMessage {
                text: PREVIEW_REMINDER.to_owned(),
                hidden: true,
            });
        });
        let runner = Arc::new(Runner::default());
        let approvals = Arc::new(Approvals::default());
        let mut registry = ToolRegistry::new();
        registry
            .register_checked(
                Arc::new(ResolveTool::with_runner(
                    Arc::clone(&store),
                    Arc::clone(&runner),
                    Arc::clone(&approvals),
                )),
                Some(plainly_valid),
            )
            .expect("an empty registry accepts resolve");
        Self {
            cwd: cwd.into(),
            store,
            runner,
            registry: RwLock::new(registry),
            messages,
            queued_choices: Mutex::new(VecDeque::new()),
            approvals,
            pack_options: RwLock::default(),
            _reminders: reminders,
        }
    }

    /// Decides each tool's approval [`Policy`] by its name from now on
    /// (without one, every tool's is `model`). A pending action is judged
    /// by the tool whose call pushed it.
    pub fn set_policy(&self, policy: impl Fn(&str) -> Policy + Send + Sync + 'static) {
        let policy: Arc<PolicyFn> = Arc::new(policy);
        self.approvals.set_policy(policy);
    }

    /// The approval policy of the tool called `tool`.
    pub fn policy(&self, tool: &str) -> Policy {
        self.approvals.policy(tool)
    }

    /// Who is asked when an `apply` falls under the `ask` policy. Without
    /// one, such an apply is refused and the action stays pending.
    pub fn set_approver(&self, approver: Arc<dyn Approver>) {
        self.approvals.set_approver(approver);
    }

    /// Where the session reports every push, resolve and answer.
    pub fn set_journal(&self, journal: Arc<dyn Journal>) {
        self.approvals.set_journal(journal);
    }

    /// Who watches every apply from now on (undo snapshots): told before
    /// each apply runs and after it returned, and asked for reminders for
    /// the model after every tool call.
    pub fn set_apply_observer(&self, observer: Arc<dyn ApplyObserver>) {
        self.approvals.set_observer(observer);
    }

    /// Tells the observer whether the call `pushed` actions, and queues its
    /// reminders as hidden messages for the model.
    fn tell_observer(&self, pushed: bool) {
        let Some(observer) = self.approvals.observer() else {
            return;
        };
        if pushed && let Err(message) = catch(|| observer.action_pushed()) {
            tracing::warn!("the apply observer failed: {message}");
        }
        match catch(|| observer.reminders()) {
            Ok(reminders) => lock(&self.messages).extend(
                reminders
                    .into_iter()
                    .map(|text| SessionMessage { text, hidden: true }),
            ),
            Err(message) => tracing::warn!("the apply observer failed: {message}"),
        }
    }

    /// The text the tool call that pushed the pending action `id` returned
    /// (its preview), while the action is pending; `None` for an action
    /// pushed outside a tool call of this session.
    pub fn preview(&self, id: u64) -> Option<String> {
        self.approvals.origin(id).map(|origin| origin.preview)
    }

    /// Remembers what the call of `tool` pushed, with `result`'s text as
    /// the preview, and journals each push.
    fn remember_pushes(&self, tool: &str, pushed: &[u64], result: &ToolResult) {
        if pushed.is_empty() {
            return;
        }
        let preview = result.text();
        for &id in pushed {
            let Some(entry) = self.store.get(id) else {
                continue;
            };
            self.approvals.remember(
                id,
                Origin {
                    tool: tool.to_owned(),
                    preview: preview.clone(),
                },
            );
            let mut record = self.approvals.entry(JournalEvent::Push, &entry, "pushed");
            record.preview = Some(preview.clone());
            record.details = entry.action().details().cloned();
            self.approvals.record(record);
        }
    }

    /// The session's approval state, for `resolve` and the session end.
    pub(crate) fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// Hands `settings` to the packs loaded from now on (set it before
    /// loading them).
    pub fn set_pack_options(&self, settings: PackOptions) {
        *write(&self.pack_options) = Arc::new(settings);
    }

    /// What packs loaded now are told ([`PackOptions`]).
    pub fn pack_options(&self) -> Arc<PackOptions> {
        Arc::clone(&read(&self.pack_options))
    }

    /// The same session with `limits` for every later call.
    pub fn with_limits(self, limits: CallLimits) -> Self {
        self.runner.set_limits(limits);
        self
    }

    /// The limits every call runs under.
    pub fn limits(&self) -> CallLimits {
        self.runner.limits()
    }

    /// Runs the reject code of `entry`, already taken off the store, under
    /// the session's time limit; for front ends that discard what is left
    /// when a session ends. `Ok(None)`: no reject code, or it returned
    /// nothing.
    ///
    /// # Errors
    ///
    /// The reject's error or panic message, or
    /// `reject timed out after {limit}` (then a warning is logged and the
    /// reject is abandoned).
    pub fn run_reject(
        &self,
        entry: &PendingEntry,
        reason: &str,
    ) -> Result<Option<ToolOutput>, String> {
        crate::resolve::run_reject(&self.runner, &self.store, entry, reason)
    }

    /// The working directory tools run in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The session's pending-action store.
    pub fn store(&self) -> &Arc<PendingActionStore> {
        &self.store
    }

    /// Adds a tool.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Conflict`] if a tool of that name exists (it stays),
    /// or an invalid name or schema.
    pub fn register_tool(&self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        write(&self.registry).register(tool)
    }

    /// Adds a tool whose parameter schema was checked before (an installed
    /// pack's): unlike [`register_tool`](Self::register_tool), the schema
    /// is compiled at its first call, so registering hundreds of such tools
    /// costs no schema compilation; a schema that turns out invalid makes
    /// each call an error result (`Tool {name} is unavailable: invalid
    /// parameters schema: …`).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Conflict`] if a tool of that name exists (it stays),
    /// or an invalid name.
    pub fn register_schema_checked_tool(&self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        write(&self.registry).register_schema_checked(tool)
    }

    /// Every registered tool, hidden ones included, in registration order.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.read_registry().iter().cloned().collect()
    }

    /// The tools offered to the model right now (`resolve` only while
    /// something is pending).
    pub fn offered_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.read_registry()
            .iter()
            .filter(|tool| tool.offered())
            .cloned()
            .collect()
    }

    /// Runs one tool call in a fresh context.
    ///
    /// For a caller with one call and no loop (tests, benchmarks, the pack
    /// authors' harness `xcsh-pack-test`): a front end that reads calls one
    /// after another gives them to [`drive`](crate::call_run::drive)
    /// instead. See [`execute_with`](Self::execute_with).
    pub fn execute(&self, call: &ToolCall) -> ToolResult {
        self.execute_with(call, ToolContext::new(call.id.clone(), self.cwd.clone()))
    }

    /// Runs one tool call in `context` (progress sink, cancellation), as
    /// [`drive`](crate::call_run::drive) runs each call when it has no
    /// session thread: on this thread, or under a time limit on one of the
    /// session's workers while this thread waits at most the limit.
    ///
    /// Unknown tools and invalid arguments give an error result without
    /// running anything; a panicking tool gives
    /// `Tool {name} panicked: {message}`; a call past the time limit gives
    /// `Tool {name} timed out after {limit}` (its cancellation flag is set,
    /// and what it pushed is taken back); a result over the size cap is cut
    /// and ends with a note (`[Result truncated: {total} bytes, over the
    /// {cap}-byte limit]`).
    pub fn execute_with(&self, call: &ToolCall, context: ToolContext) -> ToolResult {
        run_one(self, call.clone(), context)
    }

    fn read_registry(&self) -> std::sync::RwLockReadGuard<'_, ToolRegistry> {
        read(&self.registry)
    }

    /// Messages queued for the next model request, removed from the queue.
    pub fn take_messages(&self) -> Vec<SessionMessage> {
        std::mem::take(&mut *lock(&self.messages))
    }

    /// Messages queued for the next model request, left in the queue.
    pub fn queued_messages(&self) -> Vec<SessionMessage> {
        lock(&self.messages).clone()
    }

    /// Queues a tool choice for a later request. It waits while anything
    /// is pending, and is used by one request.
    pub fn queue_tool_choice(&self, choice: ToolChoice) {
        lock(&self.queued_choices).push_back(choice);
    }

    /// The tool choice the next request would use, without consuming a
    /// queued override.
    pub fn tool_choice(&self, provider: ProviderCapabilities) -> ToolChoice {
        let choice = if self.store.has_pending() {
            resolve_choice()
        } else {
            lock(&self.queued_choices)
                .front()
                .cloned()
                .unwrap_or(ToolChoice::Auto)
        };
        provider.adapt(choice)
    }

    /// The tool choice for the request about to be sent; consumes a queued
    /// override once nothing is pending.
    pub fn next_tool_choice(&self, provider: ProviderCapabilities) -> ToolChoice {
        let choice = if self.store.has_pending() {
            resolve_choice()
        } else {
            lock(&self.queued_choices)
                .pop_front()
                .unwrap_or(ToolChoice::Auto)
        };
        provider.adapt(choice)
    }
}

fn resolve_choice() -> ToolChoice {
    ToolChoice::Tool {
        name: RESOLVE_TOOL_NAME.to_owned(),
    }
}

/// What a call needs of the session: [`call_run`](crate::call_run) runs
/// every call through it.
impl CallHost for Session {
    fn registered(&self, name: &str) -> Option<Arc<RegisteredTool>> {
        self.read_registry().get(name).cloned()
    }

    fn runner(&self) -> &Runner {
        &self.runner
    }

    fn pending(&self) -> &PendingActionStore {
        &self.store
    }

    /// The pushes, with the result as their preview, journalled; the apply
    /// observer told, its reminders queued.
    fn record_call(&self, tool: &str, pushed: &[u64], result: &ToolResult) {
        self.remember_pushes(tool, pushed, result);
        self.tell_observer(!pushed.is_empty());
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("cwd", &self.cwd)
            .field("store", &self.store)
            .field("tools", &self.read_registry().len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
