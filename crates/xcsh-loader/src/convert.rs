//! Every conversion between the v1 ABI's values and the shared tool types
//! (`xcsh-tool-types`, through `xcsh-core`), on the host's side: what a
//! pack returns or reports becomes a [`ToolOutput`], [`ToolError`],
//! [`ToolHints`], [`LogLevel`] or [`LoadError`]; what the host answers
//! becomes an [`FfiError`] or an [`RString`]. The adapters (`pack_tool`,
//! `pack_action`, `host_api`, `execute_context`, `factory`) call these and
//! convert nothing themselves. (The pack's side of the same boundary is
//! the SDK's.)

use std::path::Path;

use abi_stable::std_types::{ROption, RResult, RString};
use serde_json::Value;
use xcsh_core::{ContentBlock, LogLevel, ToolError, ToolHints, ToolOutput};
use xcsh_plugin_api::abi::v1::{
    FfiContentBlock, FfiError, FfiErrorKind, FfiLogLevel, FfiToolHints, FfiToolOutput,
};

use crate::LoadError;

/// Converts a pack's output; details must be valid JSON.
pub(crate) fn output(output: FfiToolOutput) -> Result<ToolOutput, ToolError> {
    let content = output.content.into_iter().map(content_block).collect();
    let mut result = ToolOutput::new(content);
    if let Some(json) = output.details_json.into_option() {
        let details = serde_json::from_str(&json)
            .map_err(|e| ToolError::new(format!("pack returned invalid details JSON: {e}")))?;
        result = result.with_details(details);
    }
    Ok(result)
}

fn content_block(block: FfiContentBlock) -> ContentBlock {
    match block {
        FfiContentBlock::Text { text } => ContentBlock::text(text.into_string()),
        FfiContentBlock::Image { data, mime_type } => {
            ContentBlock::image(data.into_string(), mime_type.into_string())
        }
    }
}

/// What a call into pack code returned (an execute or an apply), as a
/// tool's result; `who` names the code in a panic's message
/// (`{who} panicked: …`).
pub(crate) fn result(
    result: RResult<FfiToolOutput, FfiError>,
    who: impl FnOnce() -> String,
) -> Result<ToolOutput, ToolError> {
    output(result.into_result().map_err(|e| error(e, who))?)
}

/// What a pack's reject returned: `None` keeps the host's default message.
pub(crate) fn optional_result(
    result: RResult<ROption<FfiToolOutput>, FfiError>,
    who: impl FnOnce() -> String,
) -> Result<Option<ToolOutput>, ToolError> {
    let output = result.into_result().map_err(|e| error(e, who))?;
    output.into_option().map(self::output).transpose()
}

/// A pack's error as a tool error: its message, or for a panic
/// `{who} panicked: {message}` (e.g. `Tool x panicked: boom`).
fn error(error: FfiError, who: impl FnOnce() -> String) -> ToolError {
    ToolError::new(match error.kind {
        FfiErrorKind::Error => error.message.into_string(),
        FfiErrorKind::Panic => format!("{} panicked: {}", who(), error.message),
    })
}

/// `{what}() panicked: …` or `{what}() failed: …`, for accessors read at
/// load time.
pub(crate) fn accessor_failure(error: FfiError, accessor: &str) -> String {
    match error.kind {
        FfiErrorKind::Error => format!("{accessor}() failed: {}", error.message),
        FfiErrorKind::Panic => format!("{accessor}() panicked: {}", error.message),
    }
}

/// A factory's error or panic as the load failure it is.
pub(crate) fn factory_error(error: FfiError) -> LoadError {
    let message = crate::error::one_line(&error.message);
    match error.kind {
        FfiErrorKind::Panic => LoadError::FactoryPanicked(message),
        FfiErrorKind::Error => LoadError::Factory(message),
    }
}

/// A tool's hints; `RNone` is "not stated".
pub(crate) fn hints(hints: FfiToolHints) -> ToolHints {
    ToolHints {
        read_only: hints.read_only.into_option(),
        destructive: hints.destructive.into_option(),
        idempotent: hints.idempotent.into_option(),
        open_world: hints.open_world.into_option(),
    }
}

/// The level of a pack's log line.
pub(crate) fn log_level(level: FfiLogLevel) -> LogLevel {
    match level {
        FfiLogLevel::Trace => LogLevel::Trace,
        FfiLogLevel::Debug => LogLevel::Debug,
        FfiLogLevel::Info => LogLevel::Info,
        FfiLogLevel::Warn => LogLevel::Warn,
        FfiLogLevel::Error => LogLevel::Error,
    }
}

/// A pending action's details, which must be valid JSON.
pub(crate) fn action_details(details: ROption<RString>) -> Result<Option<Value>, String> {
    details
        .into_option()
        .map(|json| {
            serde_json::from_str(&json)
                .map_err(|e| format!("invalid pending action details JSON: {e}"))
        })
        .transpose()
}

/// The host's answer to a push: done, refused with a message, or the host
/// itself panicked (caught before it reached the pack).
pub(crate) fn push_outcome(
    outcome: std::thread::Result<Result<(), String>>,
) -> RResult<(), FfiError> {
    match outcome {
        Ok(Ok(())) => RResult::ROk(()),
        Ok(Err(message)) => RResult::RErr(FfiError::error(message)),
        Err(_) => RResult::RErr(FfiError::panic("host failed to push the action")),
    }
}

/// A path for the pack: the ABI's strings are UTF-8, so each byte of the
/// path that is not part of valid UTF-8 is written `\xNN`
/// (`xcsh_safe_fs::name::as_text`), which the SDK (1.5 and later) reads back
/// as those bytes; an older pack sees the escapes where it saw `�` before.
pub(crate) fn path(path: &Path) -> RString {
    xcsh_safe_fs::name::as_text(path).as_ref().into()
}

#[cfg(test)]
mod tests {
    use abi_stable::std_types::RVec;
    use serde_json::json;

    use super::*;

    #[test]
    fn output_keeps_blocks_and_details() {
        let converted = output(FfiToolOutput {
            content: RVec::from(vec![
                FfiContentBlock::Text { text: "hi".into() },
                FfiContentBlock::Image {
                    data: "AA==".into(),
                    mime_type: "image/png".into(),
                },
            ]),
            details_json: ROption::RSome(r#"{"n":1}"#.into()),
        })
        .unwrap();
        assert_eq!(
            converted,
            ToolOutput::text("hi")
                .with_block(ContentBlock::image("AA==", "image/png"))
                .with_details(json!({"n": 1}))
        );
    }

    #[test]
    fn invalid_details_are_an_error() {
        let error = output(FfiToolOutput {
            content: RVec::new(),
            details_json: ROption::RSome("{".into()),
        })
        .unwrap_err();
        assert_eq!(
            error.message(),
            "pack returned invalid details JSON: EOF while parsing an object at line 1 column 1"
        );
        assert_eq!(
            action_details(ROption::RSome("[".into())).unwrap_err(),
            "invalid pending action details JSON: EOF while parsing a list at line 1 column 1"
        );
    }

    #[test]
    fn panics_are_named_errors_are_not() {
        let who = || "Tool t".to_owned();
        let failed = result(RResult::RErr(FfiError::error("no such file")), who);
        assert_eq!(failed.unwrap_err().message(), "no such file");
        let panicked = result(RResult::RErr(FfiError::panic("boom")), who);
        assert_eq!(panicked.unwrap_err().message(), "Tool t panicked: boom");
        assert_eq!(optional_result(RResult::ROk(ROption::RNone), who), Ok(None));
    }

    #[test]
    fn factory_errors_and_panics_are_their_own_failures() {
        assert_eq!(
            factory_error(FfiError::error("no config")),
            LoadError::Factory("no config".into())
        );
        assert_eq!(
            factory_error(FfiError::panic("boom\n  at line 3")),
            LoadError::FactoryPanicked("boom at line 3".into())
        );
    }

    #[test]
    fn every_log_level_keeps_its_rank() {
        let levels = [
            FfiLogLevel::Trace,
            FfiLogLevel::Debug,
            FfiLogLevel::Info,
            FfiLogLevel::Warn,
            FfiLogLevel::Error,
        ]
        .map(log_level);
        assert_eq!(
            levels,
            [
                LogLevel::Trace,
                LogLevel::Debug,
                LogLevel::Info,
                LogLevel::Warn,
                LogLevel::Error
            ]
        );
    }

    #[test]
    fn hints_keep_what_is_stated() {
        let stated = hints(FfiToolHints {
            read_only: ROption::RSome(true),
            destructive: ROption::RSome(false),
            idempotent: ROption::RNone,
            open_world: ROption::RSome(false),
        });
        assert_eq!(stated, ToolHints::PREVIEW);
        assert_eq!(hints(FfiToolHints::default()), ToolHints::default());
    }
}
