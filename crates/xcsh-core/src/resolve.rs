//! The hidden `resolve` tool: applies or discards the newest pending action.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use xcsh_tool_types::sync::lock;
use xcsh_tool_types::{ContentBlock, ToolError, ToolHints, ToolOutput};

use crate::apply_observer::{ApplyInfo, ApplyWatch};
use crate::approval::{Answer, ApprovalRequest, Approvals, JournalEntry, JournalEvent, Policy};
use crate::call_run::runner::{Failure, Runner, SharedRunner};
use crate::pending::{PendingActionStore, PendingEntry};
use crate::tool::{Tool, ToolContext};

/// The name the model calls `resolve` by.
pub const RESOLVE_TOOL_NAME: &str = "resolve";

const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";

/// The message of an apply refused because an earlier one of the same
/// action ran past the time limit and has not returned yet.
pub(crate) const APPLY_STILL_RUNNING: &str =
    "an earlier apply of this action timed out and is still running";

static PARAMETERS: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "action": {
                "type": "string",
                "enum": ["apply", "discard"],
                "description": "Apply the pending changes, or discard them"
            },
            "reason": {
                "type": "string",
                "description": "Why you're applying or discarding"
            }
        },
        "required": ["action", "reason"],
        "additionalProperties": false
    })
});

/// True for the arguments of nearly every `resolve` call: exactly an
/// `action` of `apply` or `discard` and a string `reason`, all of which
/// [`PARAMETERS`] accepts. The session skips the schema pass for these;
/// anything else is validated (and its errors worded) by the schema.
pub(crate) fn plainly_valid(arguments: &Value) -> bool {
    arguments.as_object().is_some_and(|fields| {
        fields.len() == 2
            && matches!(
                fields.get("action").and_then(Value::as_str),
                Some("apply" | "discard")
            )
            && fields.get("reason").is_some_and(Value::is_string)
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Decision {
    Apply,
    Discard,
}

impl Decision {
    fn as_str(&self) -> &'static str {
        match self {
            Self::Apply => "apply",
            Self::Discard => "discard",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Arguments {
    action: Decision,
    reason: String,
}

/// Applies or discards the newest action of one session's store.
///
/// Hidden: offered to the model only while something is pending, but always
/// registered so that a forced tool choice never names a missing tool.
#[derive(Debug)]
pub(crate) struct ResolveTool {
    store: Arc<PendingActionStore>,
    runner: SharedRunner,
    approvals: Arc<Approvals>,
    /// One resolve at a time, so two concurrent calls never apply the same
    /// action twice. Pushes do not take this lock.
    resolving: Mutex<()>,
    /// Applies that ran past the time limit, by entry id, until they return.
    abandoned: Arc<Mutex<HashMap<u64, Arc<Mutex<Attempt>>>>>,
}

/// One apply run under a time limit.
#[derive(Debug, Default)]
struct Attempt {
    /// The session stopped waiting for it.
    abandoned: bool,
    /// It returned (`true`: successfully).
    done: Option<bool>,
}

impl ResolveTool {
    /// A `resolve` tool over `store`, with no time limit.
    #[cfg(test)]
    pub(crate) fn new(store: Arc<PendingActionStore>) -> Self {
        Self::with_runner(store, Arc::new(Runner::default()), Arc::default())
    }

    /// A `resolve` tool whose apply and reject run under `runner`'s limits
    /// and whose applies follow `approvals`.
    pub(crate) fn with_runner(
        store: Arc<PendingActionStore>,
        runner: SharedRunner,
        approvals: Arc<Approvals>,
    ) -> Self {
        Self {
            store,
            runner,
            approvals,
            resolving: Mutex::new(()),
            abandoned: Arc::default(),
        }
    }

    /// Runs the apply of `entry` under the time limit. If the limit passes,
    /// the action stays pending; should that apply succeed later after all,
    /// the action is taken off the stack then (it was applied), with a
    /// warning, so it can never be applied twice.
    ///
    /// The session's
    /// [`ApplyObserver`](crate::apply_observer::ApplyObserver) is told
    /// before the apply runs and, on the apply's thread, when it returned;
    /// what it returns then is put in `snapshot`.
    fn run_apply(
        &self,
        entry: &PendingEntry,
        reason: &str,
        snapshot: &Arc<Mutex<Option<String>>>,
    ) -> Result<ToolOutput, String> {
        let id = entry.id();
        {
            let mut abandoned = lock(&self.abandoned);
            if let Some(attempt) = abandoned.get(&id) {
                if lock(attempt).done.is_none() {
                    return Err(APPLY_STILL_RUNNING.to_owned());
                }
                abandoned.remove(&id);
            }
        }
        let attempt = Arc::new(Mutex::new(Attempt::default()));
        let (job_entry, job_attempt) = (entry.clone(), Arc::clone(&attempt));
        let (reason, store) = (reason.to_owned(), Arc::clone(&self.store));
        let watch = self.watch_apply(entry);
        let job_snapshot = Arc::clone(snapshot);
        let outcome = self.runner.run(&self.store, move || {
            let outcome = crate::panic::catch(|| job_entry.action().apply(&reason));
            let succeeded = matches!(outcome, Ok(Ok(_)));
            if let Some(watch) = watch {
                match crate::panic::catch(|| watch.after_apply(succeeded)) {
                    Ok(id) => *lock(&job_snapshot) = id,
                    Err(message) => tracing::warn!("the apply observer failed: {message}"),
                }
            }
            let mut attempt = lock(&job_attempt);
            attempt.done = Some(succeeded);
            if attempt.abandoned {
                late_apply(&store, &job_entry, succeeded);
            }
            outcome
        });
        match outcome {
            Ok(Ok(Ok(output))) => Ok(output),
            Ok(Ok(Err(error))) => Err(error.to_string()),
            Ok(Err(message)) | Err(Failure::Panicked(message)) => Err(message),
            Err(Failure::TimedOut(limit)) => {
                let mut state = lock(&attempt);
                state.abandoned = true;
                match state.done {
                    Some(succeeded) => late_apply(&self.store, entry, succeeded),
                    None => {
                        lock(&self.abandoned).insert(id, Arc::clone(&attempt));
                    }
                }
                tracing::warn!(
                    label = entry.action().label(),
                    ?limit,
                    "apply timed out; the action stays pending"
                );
                Err(format!("apply timed out after {limit:?}"))
            }
        }
    }

    /// The observer's watch of the apply of `entry`, if there is one.
    fn watch_apply(&self, entry: &PendingEntry) -> Option<Box<dyn ApplyWatch>> {
        let observer = self.approvals.observer()?;
        let tool = self.approvals.tool_of(entry);
        let info = ApplyInfo {
            label: entry.action().label(),
            tool: &tool,
            source_tool_name: entry.action().source_tool_name(),
            policy: self.approvals.policy(&tool),
        };
        crate::panic::catch(|| observer.before_apply(&info)).unwrap_or_else(|message| {
            tracing::warn!("the apply observer failed: {message}");
            None
        })
    }

    fn apply(
        &self,
        entry: &PendingEntry,
        reason: &str,
        decided_by: &str,
    ) -> Result<ToolOutput, ToolError> {
        let snapshot = Arc::new(Mutex::new(None));
        let outcome = match self.run_apply(entry, reason, &snapshot) {
            Ok(output) => {
                self.store.remove(entry.id());
                let text = format!("Applied: {}.", entry.action().label());
                Ok(finish(entry, "apply", reason, Some(output), text))
            }
            Err(message) => Err(ToolError::new(format!("Apply failed: {message}"))
                .with_details(details(entry, "apply", reason, None))),
        };
        let snapshot = lock(&snapshot).take();
        let what = ("apply", "applied");
        self.journal_resolve(entry, what, reason, decided_by, &outcome, snapshot);
        outcome
    }

    fn discard(
        &self,
        entry: &PendingEntry,
        reason: &str,
        decided_by: &str,
    ) -> Result<ToolOutput, ToolError> {
        self.store.remove(entry.id());
        let text = format!("Discarded: {}. Reason: {reason}", entry.action().label());
        let outcome = match run_reject(&self.runner, &self.store, entry, reason) {
            Ok(output) => Ok(finish(entry, "discard", reason, output, text)),
            Err(message) => Err(ToolError::new(format!("Discard cleanup failed: {message}"))
                .with_details(details(entry, "discard", reason, None))),
        };
        let what = ("discard", "discarded");
        self.journal_resolve(entry, what, reason, decided_by, &outcome, None);
        outcome
    }

    /// Journals a resolve of `entry` (`action`, and the outcome `done`
    /// when it succeeded), with the apply's undo `snapshot`, and forgets
    /// the entry once it left the stack.
    fn journal_resolve(
        &self,
        entry: &PendingEntry,
        (action, done): (&str, &str),
        reason: &str,
        decided_by: &str,
        outcome: &Result<ToolOutput, ToolError>,
        snapshot: Option<String>,
    ) {
        let mut record = match outcome {
            Ok(output) => {
                let mut record = self.approvals.entry(JournalEvent::Resolve, entry, done);
                record.details = output.details.clone();
                record
            }
            Err(error) => {
                // A failed discard still discarded; a failed apply did not.
                let what = if action == "discard" { done } else { "failed" };
                let mut record = self.approvals.entry(JournalEvent::Resolve, entry, what);
                record.error = Some(error.message().to_owned());
                record
            }
        };
        record.action = Some(action.to_owned());
        record.reason = Some(reason.to_owned());
        record.decided_by = Some(decided_by.to_owned());
        record.snapshot = snapshot;
        self.approvals.record(record);
        if self.store.get(entry.id()).is_none() {
            self.approvals.forget(entry.id());
        }
    }

    /// An `apply` under the entry's policy: the model's own under `model`,
    /// refused under `deny`, put to a person under `ask`. Whenever it is
    /// not applied (refused, cancelled, nobody to ask) the action stays
    /// pending.
    fn apply_under_policy(
        &self,
        entry: &PendingEntry,
        reason: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self.approvals.tool_of(entry);
        match self.approvals.policy(&tool) {
            Policy::Model => self.apply(entry, reason, "model"),
            Policy::Deny => self.refuse(
                entry,
                reason,
                "policy",
                format!(
                    "Apply refused: the policy for {tool} is deny; only discard is allowed. The action is still pending."
                ),
            ),
            Policy::Ask => self.ask(entry, reason, &tool, context),
        }
    }

    fn ask(
        &self,
        entry: &PendingEntry,
        reason: &str,
        tool: &str,
        context: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let request = ApprovalRequest {
            entry_id: entry.id(),
            label: entry.action().label().to_owned(),
            tool: tool.to_owned(),
            source_tool_name: entry.action().source_tool_name().to_owned(),
            reason: reason.to_owned(),
            preview: self.approvals.origin(entry.id()).map(|o| o.preview),
            details: entry.action().details().cloned(),
        };
        let (answer, decider) = match self.approvals.approver() {
            Some(approver) => {
                let decider = approver.decider();
                match crate::panic::catch(|| approver.ask(&request)) {
                    Ok(answer) => (answer, decider),
                    Err(message) => (
                        Answer::Unavailable(format!("asking failed: {message}")),
                        decider,
                    ),
                }
            }
            None => (
                Answer::Unavailable("no one can be asked in this session".to_owned()),
                "nobody".to_owned(),
            ),
        };
        // No one decided what no one could be asked (the client cannot ask,
        // or went away first): the journal must not name a person.
        let decider = if matches!(answer, Answer::Unavailable(_)) {
            "nobody".to_owned()
        } else {
            decider
        };
        let mut record = self
            .approvals
            .entry(JournalEvent::Answer, entry, answer.as_str());
        record.action = Some("apply".to_owned());
        record.decided_by = Some(decider.clone());
        match &answer {
            Answer::Decline { reason } => record.reason.clone_from(reason),
            Answer::Unavailable(why) => record.error = Some(why.clone()),
            Answer::Approve | Answer::Cancel | Answer::Deferred => {}
        }
        self.approvals.record(record);
        // The caller gave up on this call while the person was asked: their
        // answer is not acted on (nothing applied, nothing discarded).
        if context.is_cancelled() && matches!(answer, Answer::Approve | Answer::Decline { .. }) {
            return self.refuse(entry, reason, &decider, CANCELLED_WHILE_ASKED.to_owned());
        }
        match answer {
            Answer::Approve => self.apply(entry, reason, &decider),
            Answer::Decline { reason: why } => self.decline(entry, reason, why, &decider),
            Answer::Cancel => self.refuse(
                entry,
                reason,
                &decider,
                "Apply not approved: the question was cancelled without an answer. The action is still pending.".to_owned(),
            ),
            Answer::Unavailable(why) => self.refuse(
                entry,
                reason,
                &decider,
                format!(
                    "Apply needs a person's approval (policy ask for {tool}), but {why}. The action is still pending."
                ),
            ),
            // Not refused: the answer comes with the next call.
            Answer::Deferred => Err(ToolError::new(format!(
                "Apply waits for a person's approval (policy ask for {tool}): the question was sent to them. The action is still pending."
            ))
            .with_details(details(entry, "apply", reason, None))),
        }
    }

    /// A person declined: the action is discarded (its reject gets their
    /// reason) and the model is told, as an error result, since its apply
    /// did not happen.
    fn decline(
        &self,
        entry: &PendingEntry,
        model_reason: &str,
        why: Option<String>,
        decider: &str,
    ) -> Result<ToolOutput, ToolError> {
        let label = entry.action().label();
        let reject_reason = why
            .clone()
            .unwrap_or_else(|| DECLINED_WITHOUT_REASON.to_owned());
        self.store.remove(entry.id());
        let mut text = match &why {
            Some(why) => format!(
                "A person declined to apply \"{label}\": it was discarded and nothing was applied. Their reason: {why}"
            ),
            None => format!(
                "A person declined to apply \"{label}\": it was discarded and nothing was applied. They gave no reason."
            ),
        };
        let cleanup = run_reject(&self.runner, &self.store, entry, &reject_reason);
        let mut source_details = None;
        match &cleanup {
            Ok(Some(output)) => {
                if let Some(content) = non_empty_content(output) {
                    for block in content {
                        if let Some(more) = block.as_text() {
                            text.push('\n');
                            text.push_str(more);
                        }
                    }
                }
                source_details.clone_from(&output.details);
            }
            Ok(None) => {}
            Err(message) => {
                text.push_str(&format!("\nDiscard cleanup failed: {message}"));
            }
        }
        let mut result_details = details(entry, "discard", &reject_reason, source_details);
        result_details["decidedBy"] = decider.into();
        result_details["modelReason"] = model_reason.into();
        let error = ToolError::new(text).with_details(result_details.clone());
        let mut record = self
            .approvals
            .entry(JournalEvent::Resolve, entry, "declined");
        record.action = Some("discard".to_owned());
        record.reason = Some(reject_reason);
        record.decided_by = Some(decider.to_owned());
        if let Err(message) = cleanup {
            record.error = Some(format!("Discard cleanup failed: {message}"));
        }
        record.details = Some(result_details);
        self.approvals.record(record);
        self.approvals.forget(entry.id());
        Err(error)
    }

    /// An apply that was not run: the action stays pending.
    fn refuse(
        &self,
        entry: &PendingEntry,
        reason: &str,
        decided_by: &str,
        message: String,
    ) -> Result<ToolOutput, ToolError> {
        let mut record: JournalEntry =
            self.approvals
                .entry(JournalEvent::Resolve, entry, "refused");
        record.action = Some("apply".to_owned());
        record.reason = Some(reason.to_owned());
        record.decided_by = Some(decided_by.to_owned());
        record.error = Some(message.clone());
        self.approvals.record(record);
        Err(ToolError::new(message).with_details(details(entry, "apply", reason, None)))
    }
}

/// The result of an `ask` apply whose call was cancelled while the person
/// was asked: their answer is not acted on.
pub const CANCELLED_WHILE_ASKED: &str = "Apply not run: the resolve call was cancelled while a person was asked. The action is still pending.";

/// The reason a declined action's reject gets when the person wrote none.
pub const DECLINED_WITHOUT_REASON: &str = "declined by a person";

/// An apply the session gave up on returned after all.
fn late_apply(store: &PendingActionStore, entry: &PendingEntry, succeeded: bool) {
    let label = entry.action().label();
    if succeeded {
        store.remove(entry.id());
        tracing::warn!(
            "Apply of \"{label}\" finished after its time limit: it was applied and is no longer pending"
        );
    } else {
        tracing::warn!("Apply of \"{label}\" failed after its time limit: it is still pending");
    }
}

/// Runs the reject of `entry` (already off the stack) under `runner`'s
/// time limit. A reject past the limit is abandoned with a warning
/// (`reject timed out after {limit}`); the action stays discarded.
pub(crate) fn run_reject(
    runner: &Runner,
    store: &PendingActionStore,
    entry: &PendingEntry,
    reason: &str,
) -> Result<Option<ToolOutput>, String> {
    if !entry.action().has_reject() {
        return Ok(None);
    }
    let (job_entry, reason) = (entry.clone(), reason.to_owned());
    match runner.run(store, move || job_entry.action().reject(&reason)) {
        Ok(None) => Ok(None),
        Ok(Some(result)) => result.map_err(|e| e.to_string()),
        Err(Failure::Panicked(message)) => Err(message),
        Err(Failure::TimedOut(limit)) => {
            tracing::warn!(
                "Reject of \"{}\" timed out after {limit:?}: the action was discarded without its cleanup",
                entry.action().label()
            );
            Err(format!("reject timed out after {limit:?}"))
        }
    }
}

/// The resolve result: the source's non-empty content, else `fallback`.
fn finish(
    entry: &PendingEntry,
    decision: &str,
    reason: &str,
    output: Option<ToolOutput>,
    fallback: String,
) -> ToolOutput {
    let content = output
        .as_ref()
        .and_then(non_empty_content)
        .unwrap_or_else(|| vec![ContentBlock::text(fallback)]);
    let source_details = output.and_then(|o| o.details);
    ToolOutput::new(content).with_details(details(entry, decision, reason, source_details))
}

/// The output's content without empty text blocks; `None` when nothing
/// remains.
fn non_empty_content(output: &ToolOutput) -> Option<Vec<ContentBlock>> {
    let content: Vec<ContentBlock> = output
        .content
        .iter()
        .filter(|block| !block.is_empty_text())
        .cloned()
        .collect();
    (!content.is_empty()).then_some(content)
}

fn details(
    entry: &PendingEntry,
    decision: &str,
    reason: &str,
    source_details: Option<Value>,
) -> Value {
    let mut details = Map::new();
    details.insert("action".into(), decision.into());
    details.insert("reason".into(), reason.into());
    details.insert(
        "sourceToolName".into(),
        entry.action().source_tool_name().into(),
    );
    details.insert("label".into(), entry.action().label().into());
    if let Some(source_details) = source_details {
        details.insert("sourceResultDetails".into(), source_details);
    }
    Value::Object(details)
}

impl Tool for ResolveTool {
    fn name(&self) -> &str {
        RESOLVE_TOOL_NAME
    }

    fn label(&self) -> &str {
        "Resolve"
    }

    fn description(&self) -> &str {
        "Apply or discard the most recent pending preview. Nothing in a preview \
         changes until you resolve it."
    }

    fn parameters(&self) -> &Value {
        &PARAMETERS
    }

    fn hidden(&self) -> bool {
        true
    }

    fn hints(&self) -> ToolHints {
        ToolHints {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(false),
            open_world: Some(false),
        }
    }

    fn offered(&self) -> bool {
        self.store.has_pending()
    }

    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError> {
        let Arguments { action, reason } = serde_json::from_value(arguments)
            .map_err(|e| ToolError::new(format!("Invalid arguments for resolve: {e}")))?;
        let _one_at_a_time = lock(&self.resolving);
        let entry = self
            .store
            .peek()
            .ok_or_else(|| ToolError::new(NOTHING_PENDING))?;
        tracing::debug!(
            action = action.as_str(),
            label = entry.action().label(),
            "resolving pending action"
        );
        match action {
            Decision::Apply => self.apply_under_policy(&entry, &reason, context),
            Decision::Discard => self.discard(&entry, &reason, "model"),
        }
    }
}

#[cfg(test)]
mod tests;
