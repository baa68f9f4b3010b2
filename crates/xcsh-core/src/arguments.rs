//! Validation of tool-call arguments against a tool's JSON schema.

use serde_json::Value;
use xcsh_tool_types::{NotAnObjectSchema, check_object_schema};

/// Why a tool's schema or a call's arguments were refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgumentError {
    /// The tool's parameter schema is not a JSON object schema.
    #[error("{}", NotAnObjectSchema)]
    NotAnObjectSchema,
    /// The parameter schema is not a valid JSON schema.
    #[error("invalid parameters schema: {0}")]
    InvalidSchema(String),
    /// The arguments do not match the schema.
    #[error("{0}")]
    Invalid(String),
}

/// A compiled parameter schema that checks call arguments.
pub struct ArgumentValidator {
    validator: jsonschema::Validator,
}

/// At most this many schema violations are named in one error.
const MAX_REPORTED: usize = 3;

/// Each violation's text is cut to this many characters: the validator
/// quotes the offending value, which may be megabytes long.
const MAX_VIOLATION_CHARS: usize = 300;

fn shorten(text: String) -> String {
    if text.chars().count() <= MAX_VIOLATION_CHARS {
        return text;
    }
    text.chars()
        .take(MAX_VIOLATION_CHARS - 1)
        .collect::<String>()
        + "…"
}

impl ArgumentValidator {
    /// Compiles `schema`, which must be an object schema.
    ///
    /// # Errors
    ///
    /// [`ArgumentError::NotAnObjectSchema`] or [`ArgumentError::InvalidSchema`].
    pub fn new(schema: &Value) -> Result<Self, ArgumentError> {
        check_object_schema(schema).map_err(|_| ArgumentError::NotAnObjectSchema)?;
        let validator = jsonschema::validator_for(schema)
            .map_err(|e| ArgumentError::InvalidSchema(e.to_string()))?;
        Ok(Self { validator })
    }

    /// Checks `arguments`.
    ///
    /// # Errors
    ///
    /// [`ArgumentError::Invalid`] naming the offending fields, e.g.
    /// `/action: "maybe" is not one of ["apply","discard"]`.
    pub fn validate(&self, arguments: &Value) -> Result<(), ArgumentError> {
        let mut errors = self.validator.iter_errors(arguments).peekable();
        if errors.peek().is_none() {
            return Ok(());
        }
        let mut parts: Vec<String> = Vec::new();
        let mut total = 0;
        for error in errors {
            total += 1;
            if parts.len() < MAX_REPORTED {
                let path = error.instance_path().to_string();
                parts.push(shorten(if path.is_empty() {
                    error.to_string()
                } else {
                    format!("{path}: {error}")
                }));
            }
        }
        if total > parts.len() {
            parts.push(format!("and {} more", total - parts.len()));
        }
        Err(ArgumentError::Invalid(parts.join("; ")))
    }
}

impl std::fmt::Debug for ArgumentValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgumentValidator").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["apply", "discard"]},
                "reason": {"type": "string"}
            },
            "required": ["action", "reason"],
            "additionalProperties": false
        })
    }

    #[test]
    fn accepts_matching_arguments() {
        let v = ArgumentValidator::new(&schema()).unwrap();
        v.validate(&json!({"action": "apply", "reason": "ok"}))
            .unwrap();
    }

    #[test]
    fn names_the_offending_field() {
        let v = ArgumentValidator::new(&schema()).unwrap();
        let err = v
            .validate(&json!({"action": "maybe", "reason": "ok"}))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/action: "), "{err}");
        assert!(err.contains("maybe"), "{err}");
    }

    #[test]
    fn names_a_missing_field() {
        let v = ArgumentValidator::new(&schema()).unwrap();
        let err = v.validate(&json!({"action": "apply"})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "\"reason\" is a required property",
            "{err}"
        );
    }

    #[test]
    fn a_huge_offending_value_is_not_echoed_whole() {
        let v = ArgumentValidator::new(&schema()).unwrap();
        let huge = "z".repeat(1 << 20);
        let err = v
            .validate(&json!({"action": huge, "reason": "ok"}))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/action: \"zzz"), "{}", &err[..40]);
        assert_eq!(err.chars().count(), MAX_VIOLATION_CHARS);
        assert!(err.ends_with('…'));
    }

    #[test]
    fn refuses_a_non_object_schema() {
        assert_eq!(
            ArgumentValidator::new(&json!({"type": "string"})).unwrap_err(),
            ArgumentError::NotAnObjectSchema
        );
        assert_eq!(
            ArgumentValidator::new(&json!([1, 2])).unwrap_err(),
            ArgumentError::NotAnObjectSchema
        );
    }

    #[test]
    fn refuses_an_invalid_schema() {
        let err = ArgumentValidator::new(&json!({"type": "object", "required": 5})).unwrap_err();
        assert!(matches!(err, ArgumentError::InvalidSchema(_)), "{err:?}");
    }
}
