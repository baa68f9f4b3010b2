//! One call on the caller's thread, its tool on a worker under the limit:
//! the step [`drive`](super::drive) takes for each call when it has no
//! session thread, and all that [`Session::execute`](crate::Session::execute)
//! is.

use crate::call_run::prepared::{CallHost, PreparedCall};
use crate::output::ToolResult;
use crate::tool::{ToolCall, ToolContext};

/// Runs `call` in `context` on this thread; a call the session holds to a
/// time limit runs on one of its workers while this thread waits at most
/// the limit.
pub(crate) fn run_one(session: &impl CallHost, call: ToolCall, context: ToolContext) -> ToolResult {
    match PreparedCall::new(session, call, context) {
        Ok(prepared) => prepared.run_here(session),
        Err(refused) => refused,
    }
}
