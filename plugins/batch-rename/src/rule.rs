//! Applying a rename rule to one file name.

use regex::Regex;

use crate::RenameRule;

/// A rule ready to apply (the regex compiled once).
#[derive(Debug)]
pub(crate) enum CompiledRule {
    Regex { regex: Regex, replacement: String },
    Prefix(String),
    Suffix(String),
}

impl CompiledRule {
    /// Compiles `rule`.
    ///
    /// # Errors
    ///
    /// `invalid regex pattern: …` for a pattern that does not compile.
    pub(crate) fn new(rule: &RenameRule) -> Result<Self, String> {
        Ok(match rule {
            RenameRule::Regex {
                pattern,
                replacement,
            } => Self::Regex {
                regex: Regex::new(pattern)
                    .map_err(|e| format!("invalid regex pattern: {}", last_line(&e.to_string())))?,
                replacement: replacement.clone(),
            },
            RenameRule::Prefix { prefix } => Self::Prefix(prefix.clone()),
            RenameRule::Suffix { suffix } => Self::Suffix(suffix.clone()),
        })
    }

    /// The new name for `name`.
    pub(crate) fn rename(&self, name: &str) -> String {
        match self {
            Self::Regex { regex, replacement } => {
                regex.replace_all(name, replacement.as_str()).into_owned()
            }
            Self::Prefix(prefix) => format!("{prefix}{name}"),
            Self::Suffix(suffix) => match name.rfind('.') {
                Some(dot) if dot > 0 => format!("{}{suffix}{}", &name[..dot], &name[dot..]),
                _ => format!("{name}{suffix}"),
            },
        }
    }
}

/// regex errors span several lines (with a caret diagram); keep the last,
/// which says what is wrong.
fn last_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or(message)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rename(rule: RenameRule, name: &str) -> String {
        CompiledRule::new(&rule).unwrap().rename(name)
    }

    #[test]
    fn regex_replaces_every_match_with_groups() {
        let rule = RenameRule::Regex {
            pattern: r"(\d+)".into(),
            replacement: "n$1".into(),
        };
        assert_eq!(rename(rule, "a1-b22.txt"), "an1-bn22.txt");
    }

    #[test]
    fn prefix_goes_in_front() {
        let rule = RenameRule::Prefix {
            prefix: "old_".into(),
        };
        assert_eq!(rename(rule, "notes.txt"), "old_notes.txt");
    }

    #[test]
    fn suffix_goes_before_the_extension() {
        let suffix = |s: &str| RenameRule::Suffix { suffix: s.into() };
        assert_eq!(rename(suffix("-v2"), "notes.txt"), "notes-v2.txt");
        assert_eq!(rename(suffix("-v2"), "archive.tar.gz"), "archive.tar-v2.gz");
        assert_eq!(rename(suffix("-v2"), "Makefile"), "Makefile-v2");
        assert_eq!(rename(suffix("-v2"), ".bashrc"), ".bashrc-v2");
    }

    #[test]
    fn invalid_regex_is_one_line() {
        let err = CompiledRule::new(&RenameRule::Regex {
            pattern: "(".into(),
            replacement: String::new(),
        })
        .unwrap_err();
        assert_eq!(err, "invalid regex pattern: error: unclosed group");
    }
}
