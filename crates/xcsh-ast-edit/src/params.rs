//! The arguments of an `ast_edit` call and their JSON schema.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::nullable::NullableAsAnyOf;

/// The arguments of one `ast_edit` call.
///
/// The doc comments of the fields are the descriptions the model reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AstEditParams {
    /// ast-grep pattern: code of the chosen language with metavariables, e.g. `foo($A)`; `$A` matches one node, `$$$ARGS` any number of nodes.
    pub pattern: String,
    /// Replacement code; metavariables captured by the pattern are substituted, e.g. `bar($A)`.
    pub rewrite: String,
    /// Language of the pattern and of the files to edit: rust, typescript, tsx, javascript, python or go.
    pub language: String,
    /// File or directory to edit, relative to the working directory (default: the working directory); it must resolve inside the working directory unless the user allows more. Directory walks honour .gitignore and only visit regular files of the language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Glob filters on paths relative to `path`, e.g. `src/**/*.rs`; a leading `!` excludes, e.g. `!**/tests/**`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub globs: Vec<String>,
    /// Stop after this many replacements in total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_replacements: Option<u32>,
    /// Stop after this many changed files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_files: Option<u32>,
}

impl AstEditParams {
    /// The JSON schema of the arguments: an object schema without unknown
    /// fields, as the session validates calls against it, tidied by the
    /// policy every tool's schema follows ([`xcsh_core::offered_schema`]).
    /// Optional fields are `anyOf` a value and `null` ([`NullableAsAnyOf`]).
    pub fn schema() -> Value {
        let generator = SchemaSettings::draft2020_12()
            .with_transform(NullableAsAnyOf)
            .into_generator();
        xcsh_core::offered_schema(generator.into_root_schema_for::<AstEditParams>().to_value())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schema_is_a_strict_object_schema() {
        let schema = AstEditParams::schema();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        let mut required: Vec<&str> = schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        required.sort_unstable();
        assert_eq!(required, ["language", "pattern", "rewrite"]);
        assert_eq!(
            schema["properties"]["max_files"]["anyOf"],
            json!([{"type": "integer", "format": "uint32", "minimum": 1}, {"type": "null"}])
        );
        assert_eq!(
            schema["properties"]["path"]["anyOf"],
            json!([{"type": "string"}, {"type": "null"}])
        );
        // No `type` arrays anywhere: strict MCP schema checks flag them.
        assert!(!schema.to_string().contains("\"type\":["), "{schema}");
    }

    #[test]
    fn optional_fields_default() {
        let params: AstEditParams =
            serde_json::from_value(json!({"pattern": "a", "rewrite": "b", "language": "rust"}))
                .unwrap();
        assert_eq!(params.path, None);
        assert!(params.globs.is_empty());
        assert_eq!(params.max_replacements, None);
    }
}
