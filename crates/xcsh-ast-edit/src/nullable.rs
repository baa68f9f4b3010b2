//! Optional fields in the schema as `anyOf` alternatives instead of a
//! `type` array: schemars writes `"type": ["string", "null"]` for an
//! `Option`, which strict MCP schema checks (the Inspector's `--strict`)
//! flag; `"anyOf": [{"type": "string"}, {"type": "null"}]` says the same.

use schemars::Schema;
use schemars::transform::{Transform, transform_subschemas};
use serde_json::{Map, Value, json};

/// Keywords that describe the field rather than constrain its value: they
/// stay beside the `anyOf`, everything else moves into the non-null branch.
const ANNOTATIONS: [&str; 5] = ["title", "description", "default", "examples", "deprecated"];

/// Rewrites `"type": [T…, "null"]` as `"anyOf": [{"type": T…, constraints}, {"type": "null"}]`,
/// in every subschema.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullableAsAnyOf;

impl Transform for NullableAsAnyOf {
    fn transform(&mut self, schema: &mut Schema) {
        transform_subschemas(self, schema);
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let Some(Value::Array(types)) = object.get("type") else {
            return;
        };
        let mut others: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if others.len() == types.len() || others.is_empty() {
            return;
        }
        object.remove("type");
        let mut branch = Map::new();
        let only = (others.len() == 1).then(|| others.remove(0));
        branch.insert("type".to_owned(), only.unwrap_or(Value::Array(others)));
        let constraints: Vec<String> = object
            .keys()
            .filter(|key| !ANNOTATIONS.contains(&key.as_str()))
            .cloned()
            .collect();
        for key in constraints {
            if let Some(value) = object.remove(&key) {
                branch.insert(key, value);
            }
        }
        object.insert(
            "anyOf".to_owned(),
            json!([Value::Object(branch), {"type": "null"}]),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nullable_type_array_becomes_any_of_with_its_constraints_inside() {
        let mut schema = Schema::try_from(json!({
            "type": "object",
            "properties": {
                "n": {"description": "How many.", "type": ["integer", "null"], "format": "uint32", "minimum": 1},
                "s": {"type": "string"},
            }
        }))
        .unwrap();
        NullableAsAnyOf.transform(&mut schema);
        assert_eq!(
            schema.to_value(),
            json!({
                "type": "object",
                "properties": {
                    "n": {"description": "How many.", "anyOf": [
                        {"type": "integer", "format": "uint32", "minimum": 1},
                        {"type": "null"},
                    ]},
                    "s": {"type": "string"},
                }
            })
        );
    }
}
