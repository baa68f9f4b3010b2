//! The rule every tool name follows, and its message.

/// True for tool names of 1–64 characters of `A-Z a-z 0-9 _ -`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A tool name the host refuses: not 1–64 characters of `A-Z a-z 0-9 _ -`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid tool name {name:?}: expected 1-64 characters of A-Z, a-z, 0-9, _ or -")]
pub struct InvalidToolName {
    /// The refused name.
    pub name: String,
}

/// Checks `name` against the tool-name rule.
///
/// # Errors
///
/// [`InvalidToolName`], whose message names the name and the rule.
///
/// ```
/// use xcsh_tool_types::check_tool_name;
/// assert!(check_tool_name("batch_rename-2").is_ok());
/// assert_eq!(
///     check_tool_name("has space").unwrap_err().to_string(),
///     "invalid tool name \"has space\": expected 1-64 characters of A-Z, a-z, 0-9, _ or -"
/// );
/// ```
pub fn check_tool_name(name: &str) -> Result<(), InvalidToolName> {
    if is_valid_tool_name(name) {
        Ok(())
    } else {
        Err(InvalidToolName {
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_rule_allows_and_refuses() {
        for name in ["a", "ok_Name-1", &"x".repeat(64)] {
            assert!(check_tool_name(name).is_ok(), "{name}");
        }
        for name in ["", "has space", "dot.name", "é", &"x".repeat(65)] {
            assert_eq!(
                check_tool_name(name).unwrap_err(),
                InvalidToolName {
                    name: name.to_owned()
                }
            );
        }
    }
}
