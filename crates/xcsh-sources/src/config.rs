//! The TOML config file: which tool packs to load.
//!
//! ```toml
//! plugins = ["packs/libbatch_rename.so"]   # library files
//! plugin_dirs = ["/opt/xcsh/packs"]        # every library directly inside
//! tool_timeout_secs = 300                  # give up on a pack call (0: never)
//!
//! # Optional: load only these packs, each pinned to its SHA-256.
//! [allow_list]
//! "packs/libbatch_rename.so" = "9f86d081884c7d65…"
//!
//! # User config only: packs in processes of their own (see `xcsh_isolate::IsolationConfig`).
//! [isolation.packs."packs/libweather.so"]
//! capabilities = ["network"]
//!
//! # Approval policies (see `docs/approvals.md`): model, ask or deny.
//! [approval]
//! default = "model"                        # every tool not named below
//! packs = { batch-rename = "ask" }         # every tool of a pack
//! tools = { ast_edit = "ask" }             # one tool (wins over its pack)
//!
//! # The journal of pushes, resolves and answers (user config only).
//! [journal]
//! path = ".xcsh/journal.jsonl"             # relative to the working directory
//! enabled = true
//!
//! # The model `xcsh agent` talks to (user config only; see `model_config`).
//! [model]
//! base_url = "http://127.0.0.1:8080/v1"
//! model = "smollm2"
//!
//! # Undo snapshots around every apply (see `undo_config`).
//! [undo]
//! enabled = true
//! ```
//!
//! Relative paths resolve against the directory holding the config file
//! (the journal's against the working directory).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use xcsh_core::Policy;

use xcsh_isolate::IsolationConfig;

/// The file name looked for in `.xcsh/` and in the user's `xcsh` config
/// directory.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// The longest config file xcsh reads, in bytes (1 MiB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// One config file's contents. Unknown keys are refused, so a typo such as
/// `plugin = …` is an error rather than silently loading nothing.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Tool pack library files.
    #[serde(default)]
    pub plugins: Vec<PathBuf>,
    /// Directories whose libraries are all loaded.
    #[serde(default)]
    pub plugin_dirs: Vec<PathBuf>,
    /// Seconds before the host gives up on a pack tool call (0: never). A
    /// project's config can only lower the limit.
    #[serde(default)]
    pub tool_timeout_secs: Option<f64>,
    /// When present, only these packs load, each with this SHA-256 (hex).
    /// The user's list is the policy; a project's list can only narrow it
    /// (a pack must be on both).
    #[serde(default)]
    pub allow_list: Option<BTreeMap<PathBuf, String>>,
    /// Which packs run in a process of their own, and what they may do
    /// there (read from the user's config file only).
    #[serde(default)]
    pub isolation: Option<IsolationConfig>,
    /// Who may apply pending actions, per tool and pack. A project's
    /// table can only make a policy stricter.
    #[serde(default)]
    pub approval: Option<ApprovalConfig>,
    /// Where the journal goes; read from the user's config only.
    #[serde(default)]
    pub journal: Option<JournalConfig>,
    /// The model `xcsh agent` talks to; read from the user's config only.
    #[serde(default)]
    pub model: Option<crate::model_config::ModelConfig>,
    /// Each pack's own configuration, by pack name (`[packs.NAME]`),
    /// checked against the schema the pack declares when it loads. A
    /// project's tables can only narrow the user's.
    #[serde(default)]
    pub packs: crate::pack_tables::PackTables,
    /// Undo snapshots: the user's table, or a trusted project's
    /// `enabled = false` (boxed: most configs have none).
    #[serde(default)]
    pub undo: Option<Box<crate::undo_config::UndoConfig>>,
}

/// The `[approval]` table: a policy for every tool, per pack and per tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalConfig {
    /// The policy of a tool named by neither `tools` nor `packs`.
    #[serde(default)]
    pub default: Option<Policy>,
    /// Policies of every tool of a pack, by pack name (built-in tools
    /// belong to the pack `built-in`).
    #[serde(default)]
    pub packs: BTreeMap<String, Policy>,
    /// Policies by tool name; they win over their pack's.
    #[serde(default)]
    pub tools: BTreeMap<String, Policy>,
}

/// The `[journal]` table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalConfig {
    /// The journal file; relative paths resolve against the working
    /// directory. Default: `.xcsh/journal.jsonl`.
    #[serde(default)]
    pub path: Option<PathBuf>,
    /// `false` turns the journal off.
    #[serde(default)]
    pub enabled: Option<bool>,
}

impl Config {
    /// Parses config text.
    ///
    /// # Errors
    ///
    /// One line: `line {n}: {what is wrong}`.
    pub fn parse(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|error| {
            let message = error.message().trim().replace('\n', " ");
            match error.span() {
                Some(span) => {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!("line {line}: {message}")
                }
                None => message,
            }
        })
    }

    /// Reads the config file at `path`, with relative paths made absolute
    /// against its directory; `None` if there is no such file.
    ///
    /// # Errors
    ///
    /// `invalid config file {path}: …`; `refusing the config file …` when
    /// it is not a regular file, is longer than [`MAX_CONFIG_BYTES`] or
    /// others could have written it (see [`xcsh_loader::OwnFile::read`]).
    pub fn load(path: &Path) -> anyhow::Result<Option<Self>> {
        match xcsh_loader::OwnFile::new(path, "the config file", MAX_CONFIG_BYTES)
            .read()
            .map_err(anyhow::Error::msg)?
        {
            Some(bytes) => Self::from_bytes(path, &bytes).map(Some),
            None => Ok(None),
        }
    }

    /// Parses the config file at `path` from its `bytes` (read once by the
    /// caller, e.g. to hash them), with relative paths made absolute.
    ///
    /// # Errors
    ///
    /// `invalid config file {path}: …`.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> anyhow::Result<Self> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| anyhow::anyhow!("invalid config file {}: {e}", path.display()))?;
        Self::from_text(path, text)
    }

    fn from_text(path: &Path, text: &str) -> anyhow::Result<Self> {
        let config = Self::parse(text).map_err(|message| {
            anyhow::anyhow!("invalid config file {}: {message}", path.display())
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        Ok(config.relative_to(base))
    }

    fn relative_to(self, base: &Path) -> Self {
        Self {
            plugins: self.plugins.iter().map(|p| base.join(p)).collect(),
            plugin_dirs: self.plugin_dirs.iter().map(|p| base.join(p)).collect(),
            tool_timeout_secs: self.tool_timeout_secs,
            approval: self.approval,
            journal: self.journal,
            model: self.model,
            packs: self.packs,
            undo: self.undo,
            allow_list: self.allow_list.map(|list| {
                list.into_iter()
                    .map(|(path, hash)| (base.join(path), hash))
                    .collect()
            }),
            isolation: self.isolation.map(|table| table.relative_to(base)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_keys_are_optional() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
        let config = Config::parse("plugins = [\"a.so\"]\nplugin_dirs = [\"d\"]\n").unwrap();
        assert_eq!(config.plugins, [PathBuf::from("a.so")]);
        assert_eq!(config.plugin_dirs, [PathBuf::from("d")]);
    }

    #[test]
    fn errors_are_one_line_with_the_line_number() {
        assert_eq!(
            Config::parse("plugins = []\nplugin = [\"x\"]\n").unwrap_err(),
            "line 2: unknown field `plugin`, expected one of `plugins`, `plugin_dirs`, `tool_timeout_secs`, `allow_list`, `isolation`, `approval`, `journal`, `model`, `packs`, `undo`"
        );
        assert_eq!(
            Config::parse("plugins = \"a.so\"\n").unwrap_err(),
            "line 1: invalid type: string \"a.so\", expected a sequence"
        );
        let syntax = Config::parse("\n\nplugins = [\n").unwrap_err();
        assert!(syntax.starts_with("line 3: "), "{syntax}");
        assert!(!syntax.contains('\n'), "{syntax}");
    }

    #[test]
    fn approval_and_journal_tables_parse_and_bad_policies_are_one_line_errors() {
        let config = Config::parse(
            "[approval]\ndefault = \"ask\"\npacks = { batch-rename = \"deny\" }\ntools = { ast_edit = \"model\" }\n[journal]\nenabled = false\n",
        )
        .unwrap();
        let approval = config.approval.unwrap();
        assert_eq!(approval.default, Some(Policy::Ask));
        assert_eq!(approval.packs["batch-rename"], Policy::Deny);
        assert_eq!(approval.tools["ast_edit"], Policy::Model);
        assert_eq!(config.journal.unwrap().enabled, Some(false));
        assert_eq!(
            Config::parse("[approval]\ndefault = \"always\"\n").unwrap_err(),
            "line 2: unknown variant `always`, expected one of `model`, `ask`, `deny`"
        );
    }

    #[test]
    fn relative_paths_resolve_against_the_config_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CONFIG_FILE_NAME);
        std::fs::write(
            &path,
            "plugins = [\"../a.so\", \"/abs/b.so\"]\nplugin_dirs = [\"packs\"]",
        )
        .unwrap();
        let config = Config::load(&path).unwrap().unwrap();
        assert_eq!(
            config.plugins,
            [dir.path().join("../a.so"), PathBuf::from("/abs/b.so")]
        );
        assert_eq!(config.plugin_dirs, [dir.path().join("packs")]);
    }

    #[test]
    fn a_missing_file_is_no_config() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Config::load(&dir.path().join("nope.toml")).unwrap(), None);
    }
}
