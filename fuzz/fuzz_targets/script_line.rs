//! Fuzzes the scripted-session line parser and the call it drives: any
//! bytes as one `xcsh run` input line, through the loop `xcsh run` ships
//! (`xcsh_script::StepTurns` under `xcsh_core::drive`). Nothing may panic,
//! every line gets exactly one well-formed output line, and a line that is
//! not a tool call never touches the pending stack.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use xcsh_core::{PendingAction, Session, ToolOutput};
use xcsh_script::{Request, Step, StepFront, StepTurns, Steps, parse_line};

/// One parsed line in, its one step out.
struct OneLine {
    line: Option<Result<Request, xcsh_script::Rejected>>,
    steps: Vec<Step>,
}

impl StepFront for OneLine {
    type Error = std::convert::Infallible;

    fn next_request(
        &mut self,
        session: &Session,
        steps: &Steps,
    ) -> Result<Option<(usize, Request)>, Self::Error> {
        match self.line.take() {
            None => Ok(None),
            Some(Ok(request)) => Ok(Some((1, request))),
            Some(Err(rejected)) => {
                let message = rejected.on_line(1);
                assert!(!message.contains('\n'), "one line: {message}");
                self.steps
                    .push(steps.reject(session, 1, rejected.id, message));
                assert_eq!(
                    session.store().len(),
                    1,
                    "a rejected line touched the stack"
                );
                Ok(None)
            }
        }
    }

    fn show(&mut self, step: &Step) -> Result<(), Self::Error> {
        self.steps.push(step.clone());
        Ok(())
    }
}

fuzz_target!(|data: &[u8]| {
    let session = Arc::new(Session::new("/nonexistent-xcsh-fuzz-dir"));
    session
        .store()
        .push(PendingAction::try_new("keep", |_| Ok(ToolOutput::text("applied"))).unwrap());
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(parsed) = parse_line(text) else {
        assert!(text.trim().is_empty() || text.trim().starts_with('#'));
        return;
    };
    let front = OneLine {
        line: Some(parsed),
        steps: Vec::new(),
    };
    let (front, _) = xcsh_core::drive(&session, StepTurns::new(front, Steps::new())).into_parts();
    assert_eq!(front.steps.len(), 1, "one step per line");
    let line = front.steps[0].to_json_line();
    assert!(!line.contains('\n'));
    let value: Value = serde_json::from_str(&line).expect("output is JSON");
    assert!(value["result"]["isError"].is_boolean());
    assert!(value["pending"].as_u64().is_some_and(|n| n <= 1));
});
