//! One call on the caller's thread, its tool on a worker under the limit:
//! the step [`drive`](super::drive) takes for each call when it has no
//! session thread, and all that [`Session::execute`] is.

use crate::call_run::prepared::PreparedCall;
use crate::output::ToolResult;
use crate::session::{Session, ToolCall};
use crate::tool::ToolContext;

/// Runs `call` in `context` on this thread; a call the session holds to a
/// time limit runs on one of its workers while this thread waits at most
/// the limit.
pub(crate) fn run_one(session: &Session, call: ToolCall, context: ToolContext) -> ToolResult {
    match PreparedCall::new(session, call, context) {
        Ok(prepared) => prepared.run_here(session),
        Err(refused) => refused,
    }
}

impl Session {
    /// Runs one tool call in a fresh context.
    ///
    /// For a caller with one call and no loop (tests, benchmarks, the pack
    /// authors' harness `xcsh-pack-test`): a front end that reads calls one
    /// after another gives them to [`drive`](crate::call_run::drive)
    /// instead. See [`execute_with`](Self::execute_with).
    pub fn execute(&self, call: &ToolCall) -> ToolResult {
        self.execute_with(
            call,
            ToolContext::new(call.id.clone(), self.cwd().to_path_buf()),
        )
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
}
