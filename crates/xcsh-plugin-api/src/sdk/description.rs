//! Doc comments as the model reads them: wrapped lines joined.
//!
//! schemars keeps a doc comment's line breaks, so a field documented over
//! two lines at 80 columns would reach the model as `first half\nsecond
//! half`. The lines of each paragraph are joined with a space; blank lines
//! (paragraph breaks) and list items (`- `, `* `) keep their line breaks.

use serde_json::Value;

/// Rewrites every `description` string in `schema` as the model should
/// read it.
pub(crate) fn unwrap_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => *text = unwrap(text),
                    other => unwrap_descriptions(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// `text` with the line breaks inside each paragraph replaced by spaces.
fn unwrap(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (index, line) in text.lines().map(str::trim_end).enumerate() {
        let mut line = line;
        if index > 0 {
            let paragraph_break = line.is_empty() || out.ends_with('\n');
            let list_item = ["- ", "* "]
                .iter()
                .any(|m| line.trim_start().starts_with(m));
            if paragraph_break || list_item {
                out.push('\n');
            } else {
                out.push(' ');
                line = line.trim_start();
            }
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wrapped_lines_are_joined_and_paragraphs_and_lists_kept() {
        assert_eq!(unwrap("one line"), "one line");
        assert_eq!(
            unwrap("The files to rename, relative to\nthe working directory."),
            "The files to rename, relative to the working directory."
        );
        assert_eq!(
            unwrap("First paragraph\nwrapped.\n\nSecond one."),
            "First paragraph wrapped.\n\nSecond one."
        );
        assert_eq!(
            unwrap("Either:\n- `a`, the first\n- `b`, the\n  second"),
            "Either:\n- `a`, the first\n- `b`, the second"
        );
    }

    #[test]
    fn every_description_in_a_schema_is_unwrapped_and_nothing_else() {
        let mut schema = json!({
            "properties": {
                "description": {"type": "string", "description": "A\nfield named description."},
                "nested": {"anyOf": [{"description": "x\ny"}]},
            },
            "examples": ["keep\nthis"],
        });
        unwrap_descriptions(&mut schema);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "description": {"type": "string", "description": "A field named description."},
                    "nested": {"anyOf": [{"description": "x y"}]},
                },
                "examples": ["keep\nthis"],
            })
        );
    }
}
