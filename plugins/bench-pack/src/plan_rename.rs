//! The `plan_rename` tool: batch-rename's arguments, planned in memory.

use std::path::Path;

use xcsh_plugin_api::schemars::JsonSchema;
use xcsh_plugin_api::serde::Deserialize;
use xcsh_plugin_api::serde_json::json;
use xcsh_plugin_api::{Tool, ToolContext, ToolError, ToolOutput};

/// Arguments of `plan_rename`: the same shape and schema as
/// `batch_rename_preview`'s, so validation and decoding cost the same.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(crate = "xcsh_plugin_api::serde", deny_unknown_fields)]
#[schemars(crate = "xcsh_plugin_api::schemars")]
pub struct PlanRenameParams {
    /// Files to rename, relative to the working directory (or absolute).
    /// Only the file name changes; files stay in their directory.
    #[schemars(length(min = 1))]
    pub files: Vec<String>,
    /// How each new file name is made from the old one.
    pub rule: RenameRule,
}

/// How a new file name is made from the old one (batch-rename's rules).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(
    crate = "xcsh_plugin_api::serde",
    tag = "kind",
    rename_all = "snake_case",
    deny_unknown_fields
)]
#[schemars(crate = "xcsh_plugin_api::schemars")]
pub enum RenameRule {
    /// Replace every match of a pattern in the file name. Here the pattern
    /// is matched literally: this pack measures the host, not a regex.
    Regex {
        /// The pattern.
        pattern: String,
        /// The replacement text.
        replacement: String,
    },
    /// Put text in front of the file name.
    Prefix {
        /// The text to add.
        prefix: String,
    },
    /// Put text after the file stem, before the extension.
    Suffix {
        /// The text to add.
        suffix: String,
    },
}

impl RenameRule {
    fn rename(&self, name: &str) -> String {
        match self {
            Self::Regex {
                pattern,
                replacement,
            } => name.replace(pattern.as_str(), replacement),
            Self::Prefix { prefix } => format!("{prefix}{name}"),
            Self::Suffix { suffix } => match name.rsplit_once('.') {
                Some((stem, ext)) if !stem.is_empty() => format!("{stem}{suffix}.{ext}"),
                _ => format!("{name}{suffix}"),
            },
        }
    }
}

/// Plans renames like batch-rename's preview, without the file system.
#[derive(Debug, Clone)]
pub struct PlanRename {
    name: String,
}

impl Default for PlanRename {
    /// Named `plan_rename_{tag}` (see [`base_name`](crate::base_name)).
    fn default() -> Self {
        Self {
            name: crate::tool_name("plan_rename"),
        }
    }
}

/// The work of `plan_rename`: the preview text (`old → new` lines) and
/// details (`renames`, `unchanged`) that batch-rename's preview returns.
pub fn plan_rename(params: &PlanRenameParams) -> ToolOutput {
    let mut lines = Vec::with_capacity(params.files.len());
    let mut renames = Vec::with_capacity(params.files.len());
    let mut unchanged = Vec::new();
    for file in &params.files {
        let path = Path::new(file);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let new_name = params.rule.rename(&name);
        if new_name == name {
            unchanged.push(file.clone());
            continue;
        }
        let to = path
            .with_file_name(&new_name)
            .to_string_lossy()
            .into_owned();
        lines.push(format!("{file} → {to}"));
        renames.push(json!({"from": file, "to": to}));
    }
    let n = renames.len();
    let text = format!(
        "Batch rename preview ({n} file{}):\n  {}",
        if n == 1 { "" } else { "s" },
        lines.join("\n  ")
    );
    ToolOutput::text(text).with_details(json!({"renames": renames, "unchanged": unchanged}))
}

impl Tool for PlanRename {
    type Params = PlanRenameParams;

    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        "Plan Rename"
    }

    fn description(&self) -> &str {
        "Plans a batch rename in memory (batch-rename's arguments) and returns the preview."
    }

    fn execute(
        &self,
        params: PlanRenameParams,
        _ctx: &ToolContext<'_>,
    ) -> Result<ToolOutput, ToolError> {
        Ok(plan_rename(&params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_rename_like_batch_rename() {
        let prefix = RenameRule::Prefix {
            prefix: "new_".into(),
        };
        assert_eq!(prefix.rename("a.txt"), "new_a.txt");
        let suffix = RenameRule::Suffix {
            suffix: "-old".into(),
        };
        assert_eq!(suffix.rename("notes.txt"), "notes-old.txt");
        assert_eq!(suffix.rename(".env"), ".env-old");
    }

    #[test]
    fn previews_and_details_list_every_rename() {
        let params = PlanRenameParams {
            files: vec!["src/a.rs".into(), "b.rs".into()],
            rule: RenameRule::Prefix {
                prefix: "x_".into(),
            },
        };
        let output = plan_rename(&params);
        let details = output.details.unwrap();
        assert_eq!(details["renames"][0]["to"], "src/x_a.rs");
        assert_eq!(details["renames"].as_array().unwrap().len(), 2);
    }
}
