//! The policy of each tool, from the user's config, a trusted project's
//! config and the command line's `--ask` / `--deny`.
//!
//! Within one source a tool's own entry wins over its pack's, which wins
//! over the source's `default`. Across sources the strictest policy wins
//! (model < ask < deny): a project, or a flag, can make a policy stricter,
//! never looser.

use xcsh_core::Policy;

use xcsh_sources::config::ApprovalConfig;
use xcsh_sources::{PackArgs, Settings};

/// The flag name meaning every tool.
pub const ALL: &str = "all";

/// Every source's `[approval]` table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyTable {
    sources: Vec<ApprovalConfig>,
}

impl PolicyTable {
    /// The table of the user's config, the project's and the flags.
    pub fn from_settings(settings: &Settings, flags: &PackArgs) -> Self {
        let mut sources: Vec<ApprovalConfig> = settings
            .approval
            .iter()
            .chain(settings.project.approval.iter())
            .cloned()
            .collect();
        for (names, policy) in [(&flags.ask, Policy::Ask), (&flags.deny, Policy::Deny)] {
            for name in names {
                sources.push(flag_source(name, policy));
            }
        }
        Self { sources }
    }

    /// The policy of the tool `tool` of the pack `pack`.
    pub fn policy(&self, tool: &str, pack: &str) -> Policy {
        self.sources
            .iter()
            .map(|source| lookup(source, tool, pack))
            .fold(Policy::Model, Policy::stricter)
    }
}

fn flag_source(name: &str, policy: Policy) -> ApprovalConfig {
    if name == ALL {
        return ApprovalConfig {
            default: Some(policy),
            ..ApprovalConfig::default()
        };
    }
    ApprovalConfig {
        default: None,
        packs: [(name.to_owned(), policy)].into(),
        tools: [(name.to_owned(), policy)].into(),
    }
}

fn lookup(source: &ApprovalConfig, tool: &str, pack: &str) -> Policy {
    source
        .tools
        .get(tool)
        .or_else(|| source.packs.get(pack))
        .or(source.default.as_ref())
        .copied()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use xcsh_sources::ProjectSettings;

    fn config(text: &str) -> ApprovalConfig {
        xcsh_sources::config::Config::parse(text)
            .unwrap()
            .approval
            .unwrap()
    }

    #[test]
    fn a_tool_entry_wins_over_its_pack_which_wins_over_the_default() {
        let settings = Settings {
            approval: Some(config(
                "[approval]\ndefault = \"ask\"\npacks = { batch-rename = \"deny\" }\ntools = { batch_rename_preview = \"model\" }",
            )),
            ..Settings::default()
        };
        let table = PolicyTable::from_settings(&settings, &PackArgs::default());
        assert_eq!(
            table.policy("batch_rename_preview", "batch-rename"),
            Policy::Model
        );
        assert_eq!(table.policy("other_rename", "batch-rename"), Policy::Deny);
        assert_eq!(table.policy("ast_edit", "built-in"), Policy::Ask);
    }

    #[test]
    fn a_project_or_a_flag_only_makes_a_policy_stricter() {
        let settings = Settings {
            approval: Some(config(
                "[approval]\ntools = { ast_edit = \"deny\", x = \"ask\" }",
            )),
            project: ProjectSettings {
                approval: Some(config(
                    "[approval]\ndefault = \"model\"\ntools = { ast_edit = \"model\", y = \"ask\" }",
                )),
                ..ProjectSettings::default()
            },
            ..Settings::default()
        };
        let flags = PackArgs {
            deny: vec!["batch-rename".to_owned()],
            ..PackArgs::default()
        };
        let table = PolicyTable::from_settings(&settings, &flags);
        assert_eq!(
            table.policy("ast_edit", "built-in"),
            Policy::Deny,
            "not loosened"
        );
        assert_eq!(table.policy("x", "p"), Policy::Ask);
        assert_eq!(
            table.policy("y", "p"),
            Policy::Ask,
            "tightened by the project"
        );
        assert_eq!(
            table.policy("z", "batch-rename"),
            Policy::Deny,
            "by the flag's pack"
        );
        assert_eq!(table.policy("z", "p"), Policy::Model);
        let all = PackArgs {
            ask: vec![ALL.to_owned()],
            ..PackArgs::default()
        };
        let table = PolicyTable::from_settings(&Settings::default(), &all);
        assert_eq!(table.policy("anything", "p"), Policy::Ask);
    }
}
