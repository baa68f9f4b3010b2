//! The tool's typed arguments.

use xcsh_plugin_api::schemars::JsonSchema;
use xcsh_plugin_api::serde::Deserialize;

/// Arguments of `batch_rename_preview`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(crate = "xcsh_plugin_api::serde", deny_unknown_fields)]
#[schemars(crate = "xcsh_plugin_api::schemars")]
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
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    crate = "xcsh_plugin_api::serde",
    tag = "kind",
    rename_all = "snake_case",
    deny_unknown_fields
)]
#[schemars(crate = "xcsh_plugin_api::schemars")]
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
