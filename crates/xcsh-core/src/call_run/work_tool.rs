//! A test tool that sleeps, may push and says which thread ran it; the
//! session it is registered in (tests of `drive`, `watched_call` and the
//! call timer).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use xcsh_tool_types::{ToolError, ToolOutput};

use crate::call::push_for_running_call;
use crate::limits::CallLimits;
use crate::pending::{PendingAction, PendingActionStore};
use crate::session::Session;
use crate::tool::{Tool, ToolContext};

/// Sleeps `ms`, then pushes an action labelled `label` (if given) and says
/// which thread ran it; `"panic"` panics.
pub(crate) struct Work {
    store: Arc<PendingActionStore>,
    schema: Value,
    returned: Arc<AtomicUsize>,
}

impl Tool for Work {
    fn name(&self) -> &str {
        "work"
    }
    fn label(&self) -> &str {
        "Work"
    }
    fn description(&self) -> &str {
        "sleeps, then may push"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError> {
        if arguments["label"] == "panic" {
            panic!("work bug");
        }
        if arguments["label"] == "early" {
            push(&self.store, "early").map_err(ToolError::new)?;
        }
        std::thread::sleep(Duration::from_millis(arguments["ms"].as_u64().unwrap_or(0)));
        let pushed = match arguments["label"].as_str() {
            Some(label) if label != "early" => push(&self.store, label),
            _ => Ok(()),
        };
        self.returned.fetch_add(1, Ordering::SeqCst);
        let thread = format!("{:?}", std::thread::current().id());
        let cancelled = context.cancellation().is_cancelled();
        match pushed {
            Ok(()) => Ok(ToolOutput::text(format!("{thread} cancelled={cancelled}"))),
            Err(refused) => Err(ToolError::new(format!("{thread} {refused}"))),
        }
    }
}

pub(crate) fn push(store: &PendingActionStore, label: &str) -> Result<(), String> {
    let action = PendingAction::try_new(label, |_| Ok(ToolOutput::text("applied")))
        .map_err(|e| e.to_string())?;
    push_for_running_call(store, action)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// A session with `work` registered and the given time limit; the
/// counter of `work` calls that returned.
pub(crate) fn session(limit_ms: Option<u64>) -> (Arc<Session>, Arc<AtomicUsize>) {
    let session = Session::new(std::env::temp_dir()).with_limits(CallLimits {
        time: limit_ms.map(Duration::from_millis),
        ..CallLimits::default()
    });
    let returned = Arc::new(AtomicUsize::new(0));
    session
        .register_tool(Arc::new(Work {
            store: Arc::clone(session.store()),
            schema: json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
            returned: Arc::clone(&returned),
        }))
        .unwrap();
    (Arc::new(session), returned)
}
