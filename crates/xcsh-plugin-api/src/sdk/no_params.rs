//! The parameters of a tool that takes none.

/// The parameters of a tool that takes none: the schema is an empty
/// object that refuses every field, so the model calls it with `{}`.
/// (`()` is not an object schema, and the host refuses it.)
///
/// ```
/// use xcsh_plugin_api::prelude::*;
///
/// let ping = FnTool::new("ping", "Ping", "Answers pong.", |_: NoParams, _ctx| {
///     Ok(ToolOutput::text("pong"))
/// });
/// # let _ = ping;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

// Written out rather than derived: with `properties` stated, a call with a
// field gets `Additional properties are not allowed ('x' was unexpected)`
// instead of `False schema does not allow 1`.
impl schemars::JsonSchema for NoParams {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NoParams".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {},
            "additionalProperties": false
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_an_empty_object_that_refuses_fields() {
        let schema = serde_json::to_value(schemars::schema_for!(NoParams)).unwrap();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"], serde_json::json!({}));
        assert_eq!(schema["additionalProperties"], false);
        assert!(serde_json::from_str::<NoParams>("{}").is_ok());
        let error = serde_json::from_str::<NoParams>(r#"{"x": 1}"#).unwrap_err();
        assert!(error.to_string().contains("unknown field `x`"), "{error}");
    }
}
