//! Turning requests into calls and results into [`Step`]s, for a front end
//! that runs the calls itself (`xcsh run` through
//! [`xcsh_core::drive`]).

use std::sync::Arc;

use serde_json::Value;
use xcsh_core::{
    ProviderCapabilities, Session, ToolCall, ToolContext, ToolError, ToolOutput, ToolResult,
};

use crate::request::Request;
use crate::step::{PENDING_SHOWN, Step};

/// Shows a partial result of the named tool as it runs.
pub type ShowProgress = Arc<dyn Fn(&str, &ToolOutput) + Send + Sync>;

/// What a step needs of its request while the call runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Started {
    line: usize,
    id: Option<Value>,
    tool: String,
}

/// Makes calls of requests and steps of results; holds no session, so it
/// can move between threads with the front end that owns it.
#[derive(Clone, Default)]
pub struct Steps {
    provider: ProviderCapabilities,
    /// Shows each partial result a tool reports, with the tool's name.
    progress: Option<ShowProgress>,
}

impl std::fmt::Debug for Steps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Steps")
            .field("provider", &self.provider)
            .field("shows_progress", &self.progress.is_some())
            .finish()
    }
}

impl Steps {
    /// Steps for a provider that can force a named tool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Shows each partial result a tool reports (`report_progress`)
    /// through `show` while the call runs.
    pub fn showing_progress(mut self, show: ShowProgress) -> Self {
        self.progress = Some(show);
        self
    }

    /// The call of `request`, entry number `line`, in `session`'s working
    /// directory; the id is the request's (a string as is, other JSON as
    /// text) or `call-{line}`.
    pub fn start(
        &self,
        session: &Session,
        line: usize,
        request: Request,
    ) -> (Started, ToolCall, ToolContext) {
        let call_id = match &request.id {
            Some(Value::String(id)) => id.clone(),
            Some(other) => other.to_string(),
            None => format!("call-{line}"),
        };
        let call = ToolCall::new(call_id, request.tool.clone(), request.arguments);
        tracing::debug!(tool = %call.name, id = %call.id, "calling tool");
        let mut context = ToolContext::new(call.id.clone(), session.cwd().to_path_buf());
        if let Some(show) = &self.progress {
            let (show, tool) = (Arc::clone(show), call.name.clone());
            context = context.with_progress(Arc::new(move |partial| show(&tool, partial)));
        }
        let started = Started {
            line,
            id: request.id,
            tool: request.tool,
        };
        (started, call, context)
    }

    /// The step of the call `started` that gave `result`, with the session
    /// state it left.
    pub fn finish(&self, session: &Session, started: Started, result: ToolResult) -> Step {
        self.step(
            session,
            started.line,
            started.id,
            Some(started.tool),
            result,
        )
    }

    /// The step of a line that was not a tool call; nothing runs.
    pub fn reject(
        &self,
        session: &Session,
        line: usize,
        id: Option<Value>,
        message: String,
    ) -> Step {
        self.step(session, line, id, None, ToolError::new(message).into())
    }

    fn step(
        &self,
        session: &Session,
        line: usize,
        id: Option<Value>,
        tool: Option<String>,
        result: ToolResult,
    ) -> Step {
        Step {
            line,
            id,
            tool,
            result,
            pending: session.store().summary(PENDING_SHOWN),
            tool_choice: session.next_tool_choice(self.provider),
            reminders: session
                .take_messages()
                .into_iter()
                .map(|message| message.text)
                .collect(),
        }
    }
}
