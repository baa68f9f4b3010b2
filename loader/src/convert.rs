//! FFI output and errors into `xcsh-core` terms.

use xcsh_core::{ContentBlock, ToolError, ToolOutput};
use xcsh_plugin_api::abi::v1::{FfiContentBlock, FfiError, FfiErrorKind, FfiToolOutput};

/// Converts a pack's output; details must be valid JSON.
pub(crate) fn output(output: FfiToolOutput) -> Result<ToolOutput, ToolError> {
    let content = output
        .content
        .into_iter()
        .map(|block| match block {
            FfiContentBlock::Text { text } => ContentBlock::text(text.into_string()),
            FfiContentBlock::Image { data, mime_type } => {
                ContentBlock::image(data.into_string(), mime_type.into_string())
            }
        })
        .collect();
    let mut result = ToolOutput::new(content);
    if let Some(json) = output.details_json.into_option() {
        let details = serde_json::from_str(&json)
            .map_err(|e| ToolError::new(format!("pack returned invalid details JSON: {e}")))?;
        result = result.with_details(details);
    }
    Ok(result)
}

/// The message of a pack error; panics are named as such with `what`,
/// e.g. `Tool x panicked: boom`.
pub(crate) fn error_message(error: FfiError, what: impl FnOnce() -> String) -> String {
    match error.kind {
        FfiErrorKind::Error => error.message.into_string(),
        FfiErrorKind::Panic => format!("{} panicked: {}", what(), error.message),
    }
}

/// `{what}() panicked: …` or `{what}() failed: …`, for accessors read at
/// load time.
pub(crate) fn accessor_failure(error: FfiError, accessor: &str) -> String {
    match error.kind {
        FfiErrorKind::Error => format!("{accessor}() failed: {}", error.message),
        FfiErrorKind::Panic => format!("{accessor}() panicked: {}", error.message),
    }
}
