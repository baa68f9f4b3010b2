//! The tool's typed arguments.

use xcsh_plugin_api::params;

/// Arguments of `batch_rename_preview`.
#[params]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchRenameParams {
    /// Files to rename, relative to the working directory (or absolute);
    /// each must resolve, symlinks included, inside the working directory.
    /// Only the file name changes; files stay in their directory.
    #[schemars(length(min = 1))]
    pub files: Vec<String>,
    /// How each new file name is made from the old one.
    pub rule: RenameRule,
}

/// How a new file name is made from the old one.
#[params]
#[derive(Clone, Debug, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RenameRule {
    /// Replace every match of a regular expression in the file name;
    /// `$1` / `${name}` in the replacement refer to capture groups.
    Regex {
        /// The regular expression (Rust `regex` syntax).
        pattern: String,
        /// The replacement text.
        replacement: String,
    },
    /// Put text in front of the file name.
    Prefix {
        /// The text to add.
        prefix: String,
    },
    /// Put text after the file stem, before the extension
    /// (`notes.txt` + `-old` gives `notes-old.txt`).
    Suffix {
        /// The text to add.
        suffix: String,
    },
}
