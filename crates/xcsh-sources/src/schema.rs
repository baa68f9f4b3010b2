//! A tool's recorded parameter schema: kept as the JSON text the registry
//! holds and parsed only when something asks for it, so a session that
//! offers hundreds of installed tools and calls none of them parses none
//! of their schemas.

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON schema as recorded: its text, and its value once asked for.
pub struct RecordedSchema {
    raw: Box<RawValue>,
    parsed: OnceLock<Value>,
}

impl RecordedSchema {
    /// The schema `value`, recorded.
    pub fn new(value: Value) -> Self {
        let raw =
            serde_json::value::to_raw_value(&value).unwrap_or_else(|_| RawValue::NULL.to_owned());
        Self {
            raw,
            parsed: OnceLock::from(value),
        }
    }

    /// The schema, parsed from its text at the first call.
    pub fn value(&self) -> &Value {
        // The text is valid JSON (a `RawValue` is checked when it is read),
        // so parsing it again cannot fail; `null` would only make the
        // schema refused at its first use.
        self.parsed
            .get_or_init(|| serde_json::from_str(self.raw.get()).unwrap_or(Value::Null))
    }
}

impl From<Value> for RecordedSchema {
    fn from(value: Value) -> Self {
        Self::new(value)
    }
}

/// Equal when the schemas are equal as JSON values (key order and
/// spacing aside).
impl PartialEq for RecordedSchema {
    fn eq(&self, other: &Self) -> bool {
        self.raw.get() == other.raw.get() || self.value() == other.value()
    }
}

impl Clone for RecordedSchema {
    fn clone(&self) -> Self {
        Self {
            raw: self.raw.clone(),
            parsed: self.parsed.clone(),
        }
    }
}

impl fmt::Debug for RecordedSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw.get())
    }
}

impl Serialize for RecordedSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RecordedSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Self {
            raw: Box::<RawValue>::deserialize(deserializer)?,
            parsed: OnceLock::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_recorded_schema_reads_back_as_the_same_value_and_text() {
        let schema = RecordedSchema::new(json!({"type": "object", "required": ["a"]}));
        let text = serde_json::to_string(&schema).unwrap();
        assert_eq!(text, r#"{"required":["a"],"type":"object"}"#);
        let read: RecordedSchema = serde_json::from_str(&text).unwrap();
        assert_eq!(read, schema);
        assert_eq!(read.value(), &json!({"required": ["a"], "type": "object"}));
        let spaced: RecordedSchema =
            serde_json::from_str(r#"{ "required": ["a"], "type": "object" }"#).unwrap();
        assert_eq!(spaced, schema);
        assert_ne!(spaced, RecordedSchema::new(json!({"type": "object"})));
    }
}
