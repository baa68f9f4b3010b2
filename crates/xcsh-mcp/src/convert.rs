//! Session tools and results in MCP's shapes.

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock as McpContent, MetaObject, Tool as McpTool, ToolAnnotations,
};
use serde_json::{Map, Value};
use xcsh_core::{ContentBlock, SessionMessage, Tool, ToolHints, ToolResult};

/// The `_meta` key of a result's details (the session result's JSON
/// details, e.g. what a preview would rename, or `resolve`'s action and
/// reason), namespaced as MCP asks of keys that are not the protocol's.
pub const DETAILS_META_KEY: &str = "xcsh/details";

/// The dialect every tool's arguments are validated in (the validator's
/// default for a schema without `$schema`, which the registry removes from
/// the schemas it offers the model).
pub const SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// `tool` as `tools/list` lists it: name, label as title, description, the
/// JSON schema of its arguments (stating its dialect, [`SCHEMA_DIALECT`],
/// as `$schema`), and its hints as annotations.
pub fn tool(tool: &dyn Tool) -> McpTool {
    let mut schema = match tool.parameters() {
        Value::Object(schema) => schema.clone(),
        // The registry only accepts object schemas; keep MCP's shape anyway.
        _ => Map::from_iter([("type".to_owned(), Value::from("object"))]),
    };
    schema.insert("$schema".to_owned(), Value::from(SCHEMA_DIALECT));
    McpTool::new(
        tool.name().to_owned(),
        tool.description().to_owned(),
        Arc::new(schema),
    )
    .with_title(tool.label())
    .with_annotations(annotations(tool.label(), tool.hints()))
}

/// MCP tool annotations from `hints`; a hint the tool does not state is
/// left out, so clients apply the protocol's defaults.
pub fn annotations(title: &str, hints: ToolHints) -> ToolAnnotations {
    ToolAnnotations::from_raw(
        Some(title.to_owned()),
        hints.read_only,
        hints.destructive,
        hints.idempotent,
        hints.open_world,
    )
}

/// A session result as a `tools/call` result. The result's content comes
/// first; then each distinct message the call queued for the model (the
/// spec §4 preview reminder after a push) as a final text block, so a
/// client model knows to call `resolve`.
///
/// Details go under [`DETAILS_META_KEY`] in the result's `_meta`, never in
/// `structuredContent`: no tool declares an `outputSchema`, and some
/// clients hand a model `structuredContent` instead of the text blocks when
/// it is present, so the model would never read the reminder, a refusal
/// or a person's decline.
pub fn result(result: ToolResult, queued: &[SessionMessage]) -> CallToolResult {
    let mut content: Vec<McpContent> = result.content.iter().map(content_block).collect();
    let mut appended: Vec<&str> = Vec::new();
    for message in queued {
        if !appended.contains(&message.text.as_str()) {
            appended.push(&message.text);
            content.push(McpContent::text(message.text.clone()));
        }
    }
    let mut converted = if result.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    if let Some(details) = result.details {
        converted.meta = Some(MetaObject(Map::from_iter([(
            DETAILS_META_KEY.to_owned(),
            details,
        )])));
    }
    converted
}

fn content_block(block: &ContentBlock) -> McpContent {
    match block {
        ContentBlock::Text(text) => McpContent::text(text.clone()),
        ContentBlock::Image { data, mime_type } => {
            McpContent::image(data.clone(), mime_type.clone())
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use xcsh_core::{PREVIEW_REMINDER, ToolError, ToolOutput};

    use super::*;

    fn reminder() -> SessionMessage {
        SessionMessage {
            text: PREVIEW_REMINDER.to_owned(),
            hidden: true,
        }
    }

    #[test]
    fn a_preview_ends_with_the_reminder_once() {
        let output = ToolOutput::text("Preview").with_details(json!({"n": 1}));
        let converted = result(output.into(), &[reminder(), reminder()]);
        let wire = serde_json::to_value(&converted).unwrap();
        assert_eq!(wire["content"][0]["text"], "Preview");
        assert_eq!(wire["content"][1]["text"], PREVIEW_REMINDER);
        assert_eq!(wire["content"].as_array().unwrap().len(), 2);
        assert_eq!(wire["_meta"], json!({"xcsh/details": {"n": 1}}));
        assert_eq!(wire.get("structuredContent"), None);
        assert_eq!(wire["isError"], false);
    }

    #[test]
    fn a_tool_error_is_an_error_result_with_its_message() {
        let converted = result(ToolError::new("Unknown tool: nope").into(), &[]);
        let wire = serde_json::to_value(&converted).unwrap();
        assert_eq!(
            wire["content"],
            json!([{"type": "text", "text": "Unknown tool: nope"}])
        );
        assert_eq!(wire["isError"], true);
    }

    struct Greet(Value);

    impl Tool for Greet {
        fn name(&self) -> &str {
            "greet"
        }
        fn label(&self) -> &str {
            "Greet"
        }
        fn description(&self) -> &str {
            "Says hello."
        }
        fn parameters(&self) -> &Value {
            &self.0
        }
        fn execute(&self, _: Value, _: &xcsh_core::ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text("Hello"))
        }
    }

    #[test]
    fn a_listed_schema_states_its_dialect_and_keeps_its_keywords() {
        let schema = json!({
            "type": "object",
            "$defs": {"who": {"type": "string"}},
            "properties": {"name": {"$ref": "#/$defs/who"}},
            "additionalProperties": false
        });
        let listed = serde_json::to_value(tool(&Greet(schema))).unwrap();
        assert_eq!(
            listed["inputSchema"],
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {"who": {"type": "string"}},
                "properties": {"name": {"$ref": "#/$defs/who"}},
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn unstated_hints_are_left_out() {
        let wire = serde_json::to_value(annotations("Batch Rename", ToolHints::PREVIEW)).unwrap();
        assert_eq!(
            wire,
            json!({"title": "Batch Rename", "readOnlyHint": true, "destructiveHint": false, "openWorldHint": false})
        );
    }
}
