//! Parsing one line's JSON within a memory budget.
//!
//! A JSON value in memory can be far larger than its text: `[0,0,0,…]`
//! takes two bytes a value as text and dozens as a [`Value`], so a 63 MiB
//! line once grew to 2 GB. The parser here charges what it builds (value
//! slots as arrays grow, map entries, string bytes) against a budget of
//! [`BUDGET_FACTOR`] times the line's size plus [`BUDGET_FLOOR`], and
//! stops at once when the budget runs out.

use std::fmt;
use std::mem::size_of;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The budget is this many times the line's size, plus [`BUDGET_FLOOR`].
pub const BUDGET_FACTOR: usize = 3;

/// Every line may use this much, whatever its size, so small calls with
/// many small values are never refused.
pub const BUDGET_FLOOR: usize = 1024 * 1024;

/// Bytes a map entry costs beyond its key's text: the key's `String`, the
/// value slot and the index map's hash and index.
const ENTRY_BYTES: usize = size_of::<String>() + size_of::<Value>() + 2 * size_of::<usize>();

/// The error text when the budget runs out (serde_json adds the position).
pub fn over_budget_message(line_bytes: usize) -> String {
    format!(
        "too many JSON values for a line of {line_bytes} bytes (they would take more than {BUDGET_FACTOR} times its size in memory)"
    )
}

/// Parses `text` as one JSON value within the budget for its size.
///
/// # Errors
///
/// serde_json's error: invalid JSON, nesting too deep, or
/// [`over_budget_message`].
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let mut budget = Budget {
        left: BUDGET_FACTOR
            .saturating_mul(text.len())
            .saturating_add(BUDGET_FLOOR),
        line_bytes: text.len(),
    };
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Seed(&mut budget).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

struct Budget {
    left: usize,
    line_bytes: usize,
}

impl Budget {
    fn charge<E: de::Error>(&mut self, bytes: usize) -> Result<(), E> {
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(E::custom(over_budget_message(self.line_bytes))),
        }
    }
}

struct Seed<'a>(&'a mut Budget);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.0.charge(v.len())?;
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.0.charge(v.len())?;
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut values: Vec<Value> = Vec::new();
        while let Some(value) = seq.next_element_seed(Seed(self.0))? {
            if values.len() == values.capacity() {
                // Charge the slots before they exist.
                let more = values.capacity().max(4);
                self.0.charge(more * size_of::<Value>())?;
                values.reserve_exact(more);
            }
            values.push(value);
        }
        Ok(Value::Array(values))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.0.charge(ENTRY_BYTES + key.len())?;
            let value = map.next_value_seed(Seed(self.0))?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ordinary_json_parses_as_serde_json_does() {
        let text = r#"{"tool": "t", "arguments": {"a": [1, -2, 3.5, true, null, "x"], "b": {}}}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert_eq!(parse("[]").unwrap(), json!([]));
    }

    #[test]
    fn a_line_of_many_small_values_runs_out_of_budget() {
        let text = format!("[{}0]", "0,".repeat(2 * BUDGET_FLOOR));
        let error = parse(&text).unwrap_err().to_string();
        assert!(
            error.starts_with(&over_budget_message(text.len())),
            "{error}"
        );
    }

    #[test]
    fn a_long_string_fits_its_budget() {
        let text = format!("\"{}\"", "s".repeat(4 * BUDGET_FLOOR));
        assert_eq!(
            parse(&text).unwrap().as_str().unwrap().len(),
            4 * BUDGET_FLOOR
        );
    }

    #[test]
    fn trailing_text_and_bad_json_are_errors() {
        assert!(parse("{} x").is_err());
        assert!(parse("{").is_err());
    }
}
