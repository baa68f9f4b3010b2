//! A call ready to run, and the result it ends with.
//!
//! Every way in takes the same three steps: [`PreparedCall::new`] looks
//! the tool up, checks the arguments and says what keeps the call to the
//! time limit; the tool runs wherever the way in runs it; [`finish`] turns
//! what came back (a value, a panic, a timeout) into the model's result.
//! A call its keeper ended at the limit ends through [`time_out`].
//!
//! What these steps need of the session is the [`CallHost`] trait, which
//! the session implements: so the session can run a call through them
//! (`Session::execute`) while the ways in, which hand the session itself
//! to the front end, sit above it.

use std::sync::Arc;

use serde_json::Value;
use xcsh_tool_types::{ToolError, ToolOutput};

use crate::call::RunningCall;
use crate::call_run::runner::{Failure, Runner};
use crate::cancel::CancellationToken;
use crate::output::ToolResult;
use crate::panic::catch;
use crate::pending::PendingActionStore;
use crate::registry::RegisteredTool;
use crate::resolve::RESOLVE_TOOL_NAME;
use crate::tool::{Tool, ToolCall, ToolContext};
use crate::truncate::cap_result;

/// What a call needs of the session it runs in (the session implements
/// it).
pub(crate) trait CallHost {
    /// The registered tool called `name`, with its argument validator.
    fn registered(&self, name: &str) -> Option<Arc<RegisteredTool>>;

    /// The session's limits and its workers.
    fn runner(&self) -> &Runner;

    /// The store the call's pushes land on.
    fn pending(&self) -> &PendingActionStore;

    /// Keeps what the call of `tool` that ended with `result` pushed
    /// (`pushed`), with the result as their preview.
    fn record_call(&self, tool: &str, pushed: &[u64], result: &ToolResult);
}

/// What holds a call to the session's time limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LimitedBy {
    /// `resolve`: it runs its apply and reject under the limit itself.
    Resolve,
    /// The tool enforces the limit itself (an isolated pack's process).
    Tool,
    /// The session: the call is abandoned at the limit.
    Session,
}

/// A call whose tool was found and whose arguments are valid.
pub(crate) struct PreparedCall {
    /// The tool's name.
    pub(crate) name: String,
    /// The tool.
    pub(crate) tool: Arc<dyn Tool>,
    /// The valid arguments.
    pub(crate) arguments: Value,
    /// The call's context.
    pub(crate) context: ToolContext,
    /// What holds it to the time limit.
    pub(crate) limited_by: LimitedBy,
}

impl PreparedCall {
    /// Looks the call's tool up in `session` and checks its arguments: the
    /// call ready to run, or the error result of one that cannot.
    pub(crate) fn new(
        session: &impl CallHost,
        call: ToolCall,
        context: ToolContext,
    ) -> Result<Self, ToolResult> {
        let Some(registered) = session.registered(&call.name) else {
            return Err(ToolError::new(format!("Unknown tool: {}", call.name)).into());
        };
        if let Err(error) = registered.validate(&call.arguments) {
            return Err(error.into());
        }
        let tool = Arc::clone(registered.tool());
        let ToolCall {
            name, arguments, ..
        } = call;
        let limited_by = if name == RESOLVE_TOOL_NAME {
            LimitedBy::Resolve
        } else if tool.enforces_time_limit() {
            LimitedBy::Tool
        } else {
            LimitedBy::Session
        };
        Ok(Self {
            name,
            tool,
            arguments,
            context,
            limited_by,
        })
    }

    /// Runs the call on this thread, or (held by the session to a time
    /// limit) its tool on one of the session's workers while this thread
    /// waits at most the limit.
    pub(crate) fn run_here(self, session: &impl CallHost) -> ToolResult {
        let Self {
            name,
            tool,
            arguments,
            context,
            limited_by,
        } = self;
        let (outcome, pushed) = match limited_by {
            // `resolve` runs its apply and reject under the limits itself,
            // so that a timeout keeps the spec's `Apply failed: …` form.
            LimitedBy::Resolve => (
                catch(|| tool.execute(arguments, &context)).map_err(Failure::Panicked),
                Vec::new(),
            ),
            LimitedBy::Tool => Runner::run_unlimited(|| tool.execute(arguments, &context)),
            LimitedBy::Session => {
                let in_call = context.clone();
                session
                    .runner()
                    .run_collecting(session.pending(), move || tool.execute(arguments, &in_call))
            }
        };
        finish(session, &name, context.cancellation(), outcome, &pushed)
    }
}

/// The result of the call of `name` that ended with `outcome` having
/// pushed `pushed`: a panic or a timeout becomes an error result (a
/// timeout also sets `cancellation`), an oversized result is cut, and the
/// session remembers the pushes with the result as their preview.
pub(crate) fn finish(
    session: &impl CallHost,
    name: &str,
    cancellation: &CancellationToken,
    outcome: Result<Result<ToolOutput, ToolError>, Failure>,
    pushed: &[u64],
) -> ToolResult {
    let result = match outcome {
        Ok(result) => result.into(),
        Err(Failure::Panicked(message)) => {
            tracing::error!(tool = %name, %message, "tool panicked");
            ToolError::new(format!("Tool {name} panicked: {message}")).into()
        }
        Err(Failure::TimedOut(limit)) => {
            cancellation.cancel();
            tracing::warn!(tool = %name, ?limit, "tool call timed out");
            ToolError::new(format!("Tool {name} timed out after {limit:?}")).into()
        }
    };
    let result = match session.runner().limits().result_bytes {
        Some(cap) => cap_result(name, result, cap),
        None => result,
    };
    session.record_call(name, pushed, &result);
    result
}

/// The result of the call of `name` that its keeper ended at `limit`,
/// still `running` on a thread that is abandoned: what it pushed is taken
/// back (its later pushes are refused), its cancellation is set, and the
/// result is `Tool {name} timed out after {limit}`.
pub(crate) fn time_out(
    session: &impl CallHost,
    name: &str,
    cancellation: &CancellationToken,
    running: Option<&RunningCall>,
    limit: std::time::Duration,
) -> ToolResult {
    if let Some(running) = running {
        Runner::take_back(session.pending(), running.finish());
    }
    finish(
        session,
        name,
        cancellation,
        Err(Failure::TimedOut(limit)),
        &[],
    )
}
