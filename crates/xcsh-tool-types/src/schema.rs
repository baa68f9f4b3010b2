//! Tool parameter schemas: the one shape the host accepts, and what the
//! model sees of them. One policy for built-in tools and tool packs.

use serde_json::Value;

/// A parameter schema the host refuses: every tool takes a JSON object of
/// arguments, so its schema must say `"type": "object"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parameters schema must be a JSON object schema with \"type\": \"object\"")]
pub struct NotAnObjectSchema;

/// Checks that `schema` is a JSON object schema (`"type": "object"`).
///
/// # Errors
///
/// [`NotAnObjectSchema`].
///
/// ```
/// use serde_json::json;
/// use xcsh_tool_types::check_object_schema;
/// assert!(check_object_schema(&json!({"type": "object"})).is_ok());
/// assert_eq!(
///     check_object_schema(&json!({"type": "string"})).unwrap_err().to_string(),
///     "parameters schema must be a JSON object schema with \"type\": \"object\""
/// );
/// ```
pub fn check_object_schema(schema: &Value) -> Result<(), NotAnObjectSchema> {
    let is_object_schema = schema
        .as_object()
        .is_some_and(|s| s.get("type").and_then(Value::as_str) == Some("object"));
    if is_object_schema {
        Ok(())
    } else {
        Err(NotAnObjectSchema)
    }
}

/// A parameter schema as it is offered to the model.
///
/// Schema generators (schemars) add keys that describe the Rust type, not
/// the arguments: `$schema`, `title` (the type's name) and `description`
/// (the type's doc comment). They are removed from the top level; the
/// descriptions of the fields, which tell the model what each argument is,
/// stay. Whether unknown fields are refused is the schema's own
/// `additionalProperties` (packs using `#[xcsh_plugin_api::params]` and the
/// built-ins refuse them): this never adds or removes it, because a
/// top-level `additionalProperties: false` would refuse every argument of a
/// schema whose properties sit in `allOf` or `oneOf` branches.
///
/// ```
/// use serde_json::json;
/// let schema = json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "title": "Params",
///     "description": "Arguments of my_tool.",
///     "type": "object",
///     "properties": {"name": {"type": "string", "description": "Who to greet."}},
///     "additionalProperties": false
/// });
/// assert_eq!(
///     xcsh_tool_types::offered_schema(schema),
///     json!({
///         "type": "object",
///         "properties": {"name": {"type": "string", "description": "Who to greet."}},
///         "additionalProperties": false
///     })
/// );
/// ```
pub fn offered_schema(mut schema: Value) -> Value {
    if let Some(object) = schema.as_object_mut() {
        for key in ["$schema", "title", "description"] {
            object.remove(key);
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nested_titles_and_descriptions_stay() {
        let schema = json!({
            "title": "Top",
            "type": "object",
            "properties": {"rule": {"title": "Rule", "description": "How.", "type": "string"}},
            "$defs": {"Rule": {"title": "Rule", "description": "A rule."}}
        });
        let offered = offered_schema(schema.clone());
        assert_eq!(offered["properties"], schema["properties"]);
        assert_eq!(offered["$defs"], schema["$defs"]);
        assert!(offered.get("title").is_none());
    }

    #[test]
    fn only_object_schemas_pass_the_check() {
        for schema in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
        ] {
            assert_eq!(check_object_schema(&schema), Ok(()));
        }
        for schema in [json!(true), json!({"type": "string"}), json!({}), json!([])] {
            assert_eq!(
                check_object_schema(&schema),
                Err(NotAnObjectSchema),
                "{schema}"
            );
        }
    }

    #[test]
    fn a_non_object_schema_is_left_alone() {
        assert_eq!(offered_schema(json!(true)), json!(true));
    }
}
