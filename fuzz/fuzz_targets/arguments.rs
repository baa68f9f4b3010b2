//! Fuzzes the argument-validation path: any bytes that parse as JSON are
//! sent as arguments to `resolve` (with something pending) and to a tool
//! with a nested schema. Nothing may panic, invalid arguments must never
//! reach the tool, and a rejected `resolve` must leave the stack untouched.
#![no_main]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use xcsh_core::{
    PendingAction, Session, Tool, ToolCall, ToolContext, ToolError, ToolOutput,
};

/// A tool whose schema has nesting, enums, bounds and patterns; it checks
/// that what reaches it really matches.
struct Strict {
    schema: Value,
    calls: Arc<AtomicUsize>,
}

impl Tool for Strict {
    fn name(&self) -> &str {
        "strict"
    }
    fn label(&self) -> &str {
        "Strict"
    }
    fn description(&self) -> &str {
        "validates hard"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute(&self, arguments: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let files = arguments["files"].as_array().expect("validated: files is an array");
        assert!(!files.is_empty() && files.iter().all(Value::is_string));
        let kind = arguments["rule"]["kind"].as_str().expect("validated: rule.kind");
        assert!(["regex", "prefix", "suffix"].contains(&kind));
        Ok(ToolOutput::text("ok"))
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(arguments) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let session = Session::new(std::env::temp_dir());
    let calls = Arc::new(AtomicUsize::new(0));
    session
        .register_tool(Arc::new(Strict {
            schema: json!({
                "type": "object",
                "properties": {
                    "files": {"type": "array", "minItems": 1, "items": {"type": "string", "maxLength": 64}},
                    "rule": {
                        "type": "object",
                        "properties": {
                            "kind": {"enum": ["regex", "prefix", "suffix"]},
                            "pattern": {"type": "string", "pattern": "^[^\\u0000]*$"}
                        },
                        "required": ["kind"]
                    }
                },
                "required": ["files", "rule"],
                "additionalProperties": false
            }),
            calls: Arc::clone(&calls),
        }))
        .unwrap();
    session
        .store()
        .push(PendingAction::try_new("keep", |_| Ok(ToolOutput::text("applied"))).unwrap());

    let result = session.execute(&ToolCall::new("f", "strict", arguments.clone()));
    if result.is_error {
        assert_eq!(calls.load(Ordering::Relaxed), 0, "invalid arguments reached the tool");
    }

    let result = session.execute(&ToolCall::new("f", "resolve", arguments.clone()));
    let valid = arguments.as_object().is_some_and(|o| {
        o.len() == 2
            && matches!(o.get("action").and_then(Value::as_str), Some("apply" | "discard"))
            && o.get("reason").is_some_and(Value::is_string)
    });
    if valid {
        assert!(!result.is_error, "{}", result.text());
        assert!(!session.store().has_pending());
    } else {
        assert!(result.is_error);
        assert_eq!(session.store().len(), 1, "a rejected resolve touched the stack");
    }
});
