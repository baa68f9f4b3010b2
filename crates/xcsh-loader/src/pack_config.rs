//! A pack's configuration table checked against the schema the pack
//! declares, before its factory runs.

use serde_json::Value;
use xcsh_core::ArgumentValidator;

use crate::LoadError;

/// The table the pack `name` gets as JSON: the user's `table` (or `{}`)
/// once it passes the pack's `schema` (empty: the pack takes none).
///
/// # Errors
///
/// [`LoadError::Config`] naming the table and the bad key, e.g.
/// `[packs.text-replace] max_files: "many" is not of type "integer"`.
pub(crate) fn checked(
    name: &str,
    schema: &str,
    table: Option<&Value>,
) -> Result<String, LoadError> {
    let empty = Value::Object(Default::default());
    let table = table.unwrap_or(&empty);
    if schema.is_empty() {
        if table.as_object().is_some_and(|t| !t.is_empty()) {
            return Err(LoadError::Config(format!(
                "[packs.{name}]: this pack takes no configuration (remove the table)"
            )));
        }
        return Ok("{}".to_owned());
    }
    let schema: Value = serde_json::from_str(schema).map_err(|error| {
        LoadError::Config(format!(
            "the pack's configuration schema is not JSON: {error}"
        ))
    })?;
    let validator = ArgumentValidator::new(&schema).map_err(|error| {
        LoadError::Config(format!(
            "the pack's configuration schema is unusable: {error}"
        ))
    })?;
    validator
        .validate(table)
        .map_err(|error| LoadError::Config(describe(name, &error.to_string())))?;
    Ok(table.to_string())
}

/// The validator's `/a/b: message` parts as `[packs.NAME] a.b: message`
/// (TOML's dotted keys), one about the table as a whole as
/// `[packs.NAME]: message`.
fn describe(name: &str, message: &str) -> String {
    message
        .split("; ")
        .map(|part| {
            match part
                .strip_prefix('/')
                .and_then(|rest| rest.split_once(": "))
            {
                Some((pointer, text)) => {
                    format!("[packs.{name}] {}: {text}", pointer.replace('/', "."))
                }
                None => format!("[packs.{name}]: {part}"),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests;
