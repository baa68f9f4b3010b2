//! The hidden `resolve` tool: applies or discards the newest pending action.

use std::sync::{Arc, LazyLock, Mutex};

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::panic::catch;
use crate::{
    ContentBlock, PendingActionStore, PendingEntry, Tool, ToolContext, ToolError, ToolHints,
    ToolOutput,
};

/// The name the model calls `resolve` by.
pub const RESOLVE_TOOL_NAME: &str = "resolve";

const NOTHING_PENDING: &str = "No pending action to resolve. Nothing to apply or discard.";

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
    /// One resolve at a time, so two concurrent calls never apply the same
    /// action twice. Pushes do not take this lock.
    resolving: Mutex<()>,
}

impl ResolveTool {
    /// A `resolve` tool over `store`.
    pub fn new(store: Arc<PendingActionStore>) -> Self {
        Self {
            store,
            resolving: Mutex::new(()),
        }
    }

    fn apply(&self, entry: &PendingEntry, reason: &str) -> Result<ToolOutput, ToolError> {
        let action = entry.action();
        let outcome = catch(|| action.apply(reason)).and_then(|r| r.map_err(|e| e.to_string()));
        match outcome {
            Ok(output) => {
                self.store.remove(entry.id());
                let text = format!("Applied: {}.", action.label());
                Ok(finish(entry, "apply", reason, Some(output), text))
            }
            Err(message) => Err(ToolError::new(format!("Apply failed: {message}"))
                .with_details(details(entry, "apply", reason, None))),
        }
    }

    fn discard(&self, entry: &PendingEntry, reason: &str) -> Result<ToolOutput, ToolError> {
        self.store.remove(entry.id());
        let action = entry.action();
        let text = format!("Discarded: {}. Reason: {reason}", action.label());
        let outcome = catch(|| action.reject(reason)).and_then(|r| match r {
            None => Ok(None),
            Some(result) => result.map_err(|e| e.to_string()),
        });
        match outcome {
            Ok(output) => Ok(finish(entry, "discard", reason, output, text)),
            Err(message) => Err(ToolError::new(format!("Discard cleanup failed: {message}"))
                .with_details(details(entry, "discard", reason, None))),
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
        .and_then(ToolOutput::non_empty_content)
        .unwrap_or_else(|| vec![ContentBlock::text(fallback)]);
    let source_details = output.and_then(|o| o.details);
    ToolOutput::new(content).with_details(details(entry, decision, reason, source_details))
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
        let _one_at_a_time = self
            .resolving
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
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
