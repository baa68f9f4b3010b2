//! The agent's tool values (`xcsh-tool-types`) to and from their wire
//! form: the pack's process sends outputs, errors, hints and log levels
//! `*_to_wire`, the agent takes them back `*_from_wire`.

use serde_json::Value;
use xcsh_tool_types::{ContentBlock, LogLevel, ToolError, ToolHints, ToolOutput};

use crate::message::{Block, Hints, LogLevel as WireLogLevel, Outcome, Output};

/// A log line's level as it crosses the pipe.
pub fn log_level_to_wire(level: LogLevel) -> WireLogLevel {
    match level {
        LogLevel::Trace => WireLogLevel::Trace,
        LogLevel::Debug => WireLogLevel::Debug,
        LogLevel::Info => WireLogLevel::Info,
        LogLevel::Warn => WireLogLevel::Warn,
        LogLevel::Error => WireLogLevel::Error,
    }
}

/// A log line's level back from the pipe.
pub fn log_level_from_wire(level: WireLogLevel) -> LogLevel {
    match level {
        WireLogLevel::Trace => LogLevel::Trace,
        WireLogLevel::Debug => LogLevel::Debug,
        WireLogLevel::Info => LogLevel::Info,
        WireLogLevel::Warn => LogLevel::Warn,
        WireLogLevel::Error => LogLevel::Error,
    }
}

/// A tool output as it crosses the pipe.
pub fn output_to_wire(output: &ToolOutput) -> Output {
    Output {
        content: output
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => Block::Text(text.clone()),
                ContentBlock::Image { data, mime_type } => Block::Image {
                    data: data.clone(),
                    mime_type: mime_type.clone(),
                },
            })
            .collect(),
        details_json: output.details.as_ref().map(Value::to_string),
    }
}

/// A tool output back from the pipe.
///
/// # Errors
///
/// Details that are not JSON (the child serialised them, so only a broken
/// child sends such).
pub fn output_from_wire(output: Output) -> Result<ToolOutput, ToolError> {
    let content = output
        .content
        .into_iter()
        .map(|block| match block {
            Block::Text(text) => ContentBlock::text(text),
            Block::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        })
        .collect();
    let mut result = ToolOutput::new(content);
    if let Some(details) = output.details_json {
        result = result.with_details(details_from_wire(&details)?);
    }
    Ok(result)
}

/// Details JSON back from the pipe.
///
/// # Errors
///
/// Text that is not JSON.
pub fn details_from_wire(json: &str) -> Result<Value, ToolError> {
    serde_json::from_str(json)
        .map_err(|e| ToolError::new(format!("pack process sent invalid details JSON: {e}")))
}

/// A tool error as it crosses the pipe.
pub fn error_to_wire(error: &ToolError) -> Outcome {
    Outcome::Error {
        message: error.message().to_owned(),
        details_json: error.details().map(Value::to_string),
    }
}

/// A tool error back from the pipe.
pub fn error_from_wire(message: String, details_json: Option<String>) -> ToolError {
    let error = ToolError::new(message);
    match details_json.as_deref().map(serde_json::from_str) {
        Some(Ok(details)) => error.with_details(details),
        _ => error,
    }
}

/// Hints on the wire.
pub fn hints_to_wire(hints: ToolHints) -> Hints {
    Hints {
        read_only: hints.read_only,
        destructive: hints.destructive,
        idempotent: hints.idempotent,
        open_world: hints.open_world,
    }
}

/// Hints from the wire.
pub fn hints_from_wire(hints: Hints) -> ToolHints {
    ToolHints {
        read_only: hints.read_only,
        destructive: hints.destructive,
        idempotent: hints.idempotent,
        open_world: hints.open_world,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn outputs_and_errors_survive_the_round_trip() {
        let output = ToolOutput::new(vec![
            ContentBlock::text("a"),
            ContentBlock::image("AAAA", "image/png"),
        ])
        .with_details(json!({"n": [1, 2]}));
        assert_eq!(output_from_wire(output_to_wire(&output)).unwrap(), output);

        let error = ToolError::new("bad").with_details(json!({"why": "x"}));
        let Outcome::Error {
            message,
            details_json,
        } = error_to_wire(&error)
        else {
            panic!("an error crosses as an error");
        };
        let back = error_from_wire(message, details_json);
        assert_eq!(back.message(), "bad");
        assert_eq!(back.details(), Some(&json!({"why": "x"})));
    }
}
