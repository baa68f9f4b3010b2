//! Figure 5, a deep pending stack: one step of a session (a call that
//! pushes a pending action, then what a front end reads after it: the
//! pending count, the newest labels, the tool choice and the queued
//! reminders) with 100,000 actions already pending, against the same step
//! on an empty stack (baseline). Each step's action is popped again, so
//! the stack stays at its size. A step used to copy the whole stack to
//! count it; the third row measures that copy alone.

use std::hint::black_box;
use std::sync::Arc;

use criterion::Criterion;
use serde_json::{Value, json};
use xcsh_benches::report::{Row, Target, save_section, timing_table};
use xcsh_core::{
    PendingAction, PendingActionStore, ProviderCapabilities, Session, Tool, ToolCall, ToolContext,
    ToolError, ToolOutput, push_for_running_call,
};

/// Actions pending under the measured step.
const DEEP: usize = 100_000;

/// Labels a front end shows per step (as `xcsh run` does).
const SHOWN: usize = 5;

/// A preview tool that costs next to nothing: pushes one action.
struct Push {
    store: Arc<PendingActionStore>,
    schema: Value,
}

impl Tool for Push {
    fn name(&self) -> &str {
        "push"
    }
    fn label(&self) -> &str {
        "Push"
    }
    fn description(&self) -> &str {
        "pushes one pending action"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        push_for_running_call(&self.store, action()).map_err(|e| ToolError::new(e.to_string()))?;
        Ok(ToolOutput::text("pushed"))
    }
}

fn action() -> PendingAction {
    PendingAction::try_new("Bench: 1 file", |_| Ok(ToolOutput::default())).expect("a label")
}

/// A session with `pending` actions on its stack and the `push` tool.
fn session(pending: usize) -> Session {
    let session = Session::new(std::env::temp_dir());
    session
        .register_tool(Arc::new(Push {
            store: Arc::clone(session.store()),
            schema: json!({"type": "object"}),
        }))
        .expect("a fresh name");
    for _ in 0..pending {
        session.store().push(action());
    }
    session.take_messages();
    session
}

/// One step: the call, then what a front end reads; the action popped again.
fn step(session: &Session, call: &ToolCall) {
    black_box(session.execute(call));
    black_box(session.store().summary(SHOWN));
    black_box(session.tool_choice(ProviderCapabilities::default()));
    black_box(session.take_messages());
    black_box(session.store().pop());
}

fn bench_pending(c: &mut Criterion) {
    let call = ToolCall::new("bench", "push", json!({}));
    let mut group = c.benchmark_group("pending");
    let empty = session(0);
    group.bench_function("step_empty", |b| b.iter(|| step(&empty, &call)));
    let deep = session(DEEP);
    group.bench_function("step_100k", |b| b.iter(|| step(&deep, &call)));
    group.bench_function("copy_all_100k", |b| {
        b.iter(|| black_box(deep.store().views()))
    });
    assert_eq!(deep.store().len(), DEEP);
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_pending(&mut criterion);
    criterion.final_summary();

    let rows = [
        Row::new(
            format!("push + count + newest {SHOWN} labels, {DEEP} pending"),
            "pending/step_100k",
            "pending/step_empty",
        )
        .target(Target::Ratio(2.0)),
        Row::new(
            format!("copying all {DEEP} pending (the old per-step read)"),
            "pending/copy_all_100k",
            "pending/step_empty",
        ),
    ];
    save_section(
        "5-pending",
        &format!(
            "### 5. A deep pending stack\n\nPer step: a call that pushes a pending action, \
             then the pending count, the newest {SHOWN} labels, the tool choice and the \
             queued reminders, with {DEEP} actions already pending, against the same step \
             on an empty stack (baseline).\n\n{}",
            timing_table(&rows)
        ),
    );
}
