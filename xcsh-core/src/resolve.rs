//! The hidden `resolve` tool: applies or discards the newest pending action.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::runner::{Failure, Runner, SharedRunner};
use crate::sync::lock;
use crate::{
    ContentBlock, PendingActionStore, PendingEntry, Tool, ToolContext, ToolError, ToolHints,
    ToolOutput,
};

/// The name the model calls `resolve` by.
pub const RESOLVE_TOOL_NAME: &str = "resolve";

const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";

/// The message of an apply refused because an earlier one of the same
/// action ran past the time limit and has not returned yet.
pub const APPLY_STILL_RUNNING: &str =
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
pub struct ResolveTool {
    store: Arc<PendingActionStore>,
    runner: SharedRunner,
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
    pub fn new(store: Arc<PendingActionStore>) -> Self {
        Self::with_runner(store, Arc::new(Runner::default()))
    }

    /// A `resolve` tool whose apply and reject run under `runner`'s limits.
    pub(crate) fn with_runner(store: Arc<PendingActionStore>, runner: SharedRunner) -> Self {
        Self {
            store,
            runner,
            resolving: Mutex::new(()),
            abandoned: Arc::default(),
        }
    }

    /// Runs the apply of `entry` under the time limit. If the limit passes,
    /// the action stays pending; should that apply succeed later after all,
    /// the action is taken off the stack then (it was applied), with a
    /// warning, so it can never be applied twice.
    fn run_apply(&self, entry: &PendingEntry, reason: &str) -> Result<ToolOutput, String> {
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
        let outcome = self.runner.run(&self.store, move || {
            let outcome = crate::panic::catch(|| job_entry.action().apply(&reason));
            let succeeded = matches!(outcome, Ok(Ok(_)));
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

    fn apply(&self, entry: &PendingEntry, reason: &str) -> Result<ToolOutput, ToolError> {
        match self.run_apply(entry, reason) {
            Ok(output) => {
                self.store.remove(entry.id());
                let text = format!("Applied: {}.", entry.action().label());
                Ok(finish(entry, "apply", reason, Some(output), text))
            }
            Err(message) => Err(ToolError::new(format!("Apply failed: {message}"))
                .with_details(details(entry, "apply", reason, None))),
        }
    }

    fn discard(&self, entry: &PendingEntry, reason: &str) -> Result<ToolOutput, ToolError> {
        self.store.remove(entry.id());
        let text = format!("Discarded: {}. Reason: {reason}", entry.action().label());
        match run_reject(&self.runner, &self.store, entry, reason) {
            Ok(output) => Ok(finish(entry, "discard", reason, output, text)),
            Err(message) => Err(ToolError::new(format!("Discard cleanup failed: {message}"))
                .with_details(details(entry, "discard", reason, None))),
        }
    }
}

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

    fn execute(&self, arguments: Value, _context: &ToolContext) -> Result<ToolOutput, ToolError> {
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
            Decision::Apply => self.apply(&entry, &reason),
            Decision::Discard => self.discard(&entry, &reason),
        }
    }
}

#[cfg(test)]
mod tests;
