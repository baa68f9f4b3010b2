//! Comparing what a pack offers at two loads: installed tools are offered
//! from their record, so a pack must offer the same tools every time it
//! is opened.

use xcsh_core::Tool;

use xcsh_sources::registry::ToolRecord;
use xcsh_text::and_list;

/// The descriptor of `tool` as the registry records it.
pub fn record_of(tool: &dyn Tool) -> ToolRecord {
    ToolRecord {
        name: tool.name().to_owned(),
        label: tool.label().to_owned(),
        description: tool.description().to_owned(),
        parameters: tool.parameters().clone().into(),
        hints: tool.hints(),
    }
}

/// How the tools `after` differ from `before`, in a few words (`tool
/// names [a, b] then [a, c]`, or `the label and description of a`), or
/// `None` when they are the same tools, in any order.
pub fn difference(before: &[ToolRecord], after: &[ToolRecord]) -> Option<String> {
    fn names(tools: &[ToolRecord]) -> Vec<&str> {
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names
    }
    let (before_names, after_names) = (names(before), names(after));
    if before_names != after_names {
        return Some(format!(
            "tool names [{}] then [{}]",
            before_names.join(", "),
            after_names.join(", ")
        ));
    }
    let changed: Vec<String> = before
        .iter()
        .filter_map(|old| {
            let new = after.iter().find(|t| t.name == old.name)?;
            let fields: Vec<&str> = [
                (old.label != new.label, "label"),
                (old.description != new.description, "description"),
                (old.parameters != new.parameters, "parameter schema"),
                (old.hints != new.hints, "hints"),
            ]
            .into_iter()
            .filter_map(|(differs, field)| differs.then_some(field))
            .collect();
            (!fields.is_empty()).then(|| format!("the {} of {}", and_list(&fields), old.name))
        })
        .collect();
    (!changed.is_empty()).then(|| changed.join(", "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use xcsh_core::ToolHints;

    use super::*;

    fn tool(name: &str) -> ToolRecord {
        ToolRecord {
            name: name.to_owned(),
            label: "Label".to_owned(),
            description: "Does it.".to_owned(),
            parameters: json!({"type": "object"}).into(),
            hints: ToolHints::default(),
        }
    }

    #[test]
    fn the_same_tools_in_another_order_do_not_differ() {
        assert_eq!(
            difference(&[tool("a"), tool("b")], &[tool("b"), tool("a")]),
            None
        );
    }

    #[test]
    fn other_names_are_listed_sorted() {
        assert_eq!(
            difference(&[tool("b"), tool("a")], &[tool("a"), tool("c")]).as_deref(),
            Some("tool names [a, b] then [a, c]")
        );
        assert_eq!(
            difference(&[tool("a")], &[]).as_deref(),
            Some("tool names [a] then []")
        );
    }

    #[test]
    fn each_changed_field_of_each_tool_is_named() {
        let mut relabelled = tool("a");
        relabelled.label = "Other".to_owned();
        assert_eq!(
            difference(&[tool("a")], &[relabelled.clone()]).as_deref(),
            Some("the label of a")
        );
        let mut b = tool("b");
        b.description = "Does more.".to_owned();
        b.parameters = json!({"type": "object", "required": ["x"]}).into();
        b.hints = ToolHints::PREVIEW;
        assert_eq!(
            difference(&[tool("a"), tool("b")], &[relabelled, b]).as_deref(),
            Some("the label of a, the description, parameter schema and hints of b")
        );
    }
}
