//! Fuzzes the scripted-session line parser and the call it drives: any
//! bytes as one `xcsh run` input line. Nothing may panic, every line gets
//! exactly one well-formed output line, and a line that is not a tool call
//! never touches the pending stack.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use xcsh_script::{Driver, parse_line};
use xcsh_core::{PendingAction, Session, ToolOutput};

fuzz_target!(|data: &[u8]| {
    let session = Session::new("/nonexistent-xcsh-fuzz-dir");
    session
        .store()
        .push(PendingAction::try_new("keep", |_| Ok(ToolOutput::text("applied"))).unwrap());
    let driver = Driver::new(&session);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(parsed) = parse_line(text) else {
        assert!(text.trim().is_empty() || text.trim().starts_with('#'));
        return;
    };
    let step = match parsed {
        Ok(request) => driver.call(1, request),
        Err(rejected) => {
            let message = rejected.on_line(1);
            assert!(!message.contains('\n'), "one line: {message}");
            let step = driver.reject(1, rejected.id, message);
            assert_eq!(session.store().len(), 1, "a rejected line touched the stack");
            step
        }
    };
    let line = step.to_json_line();
    assert!(!line.contains('\n'));
    let value: Value = serde_json::from_str(&line).expect("output is JSON");
    assert!(value["result"]["isError"].is_boolean());
    assert!(value["pending"].as_u64().is_some_and(|n| n <= 1));
});
