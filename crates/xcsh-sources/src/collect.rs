//! Where tool packs come from, in load order, and the library files they
//! name.
//!
//! Order (the first pack loaded wins a tool-name conflict): `--plugin`,
//! `--plugin-dir`, `XCSH_PLUGIN_PATH`, the config files (`.xcsh/config.toml`
//! in the working directory, then the user's), then the default directories
//! (`.xcsh/plugins` in the working directory, then the user's data
//! directory's `xcsh/plugins`). A path named twice loads once. A source that
//! names a missing path is a warning; a missing default directory is normal
//! and says nothing.
//!
//! The working directory's `.xcsh` files count only once the user trusts
//! the directory ([`crate::project`]); until then one warning says what
//! was skipped and how to trust it. Its pack registry (`.xcsh/packs.json`)
//! is not a source: [`collect`] hands it, judged, to the session, which
//! offers its packs after the user's installed packs
//! (the `xcsh-installed` crate).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::config::{CONFIG_FILE_NAME, Config};
use crate::discovery::canonical;
use crate::flags::PackArgs;
use crate::project::{Project, RegistryVerdict, Verdict};
use crate::registry::REGISTRY_FILE_NAME;
use crate::registry_file::{RegistryFile, UsedRegistry};
use crate::source::{Expect, Origin, Source};
use crate::trust_store::{ProjectRecord, TRUST_FILE_NAME, TrustStore};
use crate::warning::SourceWarning;

/// The user's per-user directories for xcsh (`…/xcsh`), when the OS has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserDirs {
    /// The user's xcsh config directory, e.g. `~/.config/xcsh`.
    pub config: Option<PathBuf>,
    /// The user's xcsh data directory, e.g. `~/.local/share/xcsh`.
    pub data: Option<PathBuf>,
}

/// Names the xcsh config directory itself, instead of `xcsh` in the OS's
/// (for tests, and for keeping a second set of settings).
pub const CONFIG_DIR_ENV: &str = "XCSH_CONFIG_DIR";
/// Names the xcsh data directory itself (registry, journals, plugins).
pub const DATA_DIR_ENV: &str = "XCSH_DATA_DIR";
/// Names the xcsh cache directory itself (the first-seen records).
pub const CACHE_DIR_ENV: &str = "XCSH_CACHE_DIR";

impl UserDirs {
    /// The OS's directories (XDG on Linux, `Library/Application Support`
    /// on macOS, the known folders on Windows), each replaced by
    /// [`CONFIG_DIR_ENV`] / [`DATA_DIR_ENV`] when set and not empty.
    pub fn from_os() -> Self {
        Self {
            config: dir_from_env(CONFIG_DIR_ENV)
                .or_else(|| dirs::config_dir().map(|d| d.join("xcsh"))),
            data: dir_from_env(DATA_DIR_ENV).or_else(|| dirs::data_dir().map(|d| d.join("xcsh"))),
        }
    }

    /// The xcsh cache directory: [`CACHE_DIR_ENV`] when set and not
    /// empty, else `xcsh` in the OS's cache directory (`~/.cache`).
    pub fn cache() -> Option<PathBuf> {
        dir_from_env(CACHE_DIR_ENV).or_else(|| dirs::cache_dir().map(|d| d.join("xcsh")))
    }
}

/// The directory the environment variable `name` names, if set and not
/// empty.
fn dir_from_env(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// How pack code may run, from the config files.
///
/// User-level policy comes from the user's config only; a trusted
/// project's config can only tighten it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// The user's config's `tool_timeout_secs`.
    pub tool_timeout: Option<Duration>,
    /// The user's config's `allow_list` entries; `None` when it has none.
    pub allow_list: Option<Vec<(PathBuf, String)>>,
    /// The user's config's `[isolation]` table (a project's is ignored).
    pub isolation: Option<xcsh_isolate::IsolationConfig>,
    /// The user's config's `[approval]` table.
    pub approval: Option<crate::config::ApprovalConfig>,
    /// The user's config's `[journal]` table (a project's is ignored: the
    /// journal records what a project does, so it is not the project's to
    /// move or turn off).
    pub journal: Option<crate::config::JournalConfig>,
    /// The user's config's `[model]` table (a project's is ignored: which
    /// model reads the project, and with whose key, is the user's choice).
    pub model: Option<crate::model_config::ModelConfig>,
    /// Each pack's configuration table: the user's, narrowed by a trusted
    /// project's.
    pub packs: crate::pack_tables::PackTables,
    /// The user's config file, when it has `[packs.NAME]` tables.
    pub packs_file: Option<PathBuf>,
    /// The user's config's `[undo]` table.
    pub undo: Option<crate::undo_config::UndoConfig>,
    /// A trusted project's settings, which only tighten the user's.
    pub project: ProjectSettings,
}

/// What a trusted project's config and trust record add: each only
/// tightens what loads and how long it may run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProjectSettings {
    /// The project config's `tool_timeout_secs`: lowers the limit, never
    /// raises it.
    pub tool_timeout: Option<Duration>,
    /// The project config's path and `allow_list`: a pack must be on it
    /// too.
    pub allow_list: Option<(PathBuf, Vec<(PathBuf, String)>)>,
    /// The project config's `[approval]` table: makes policies stricter,
    /// never looser.
    pub approval: Option<crate::config::ApprovalConfig>,
    /// The project config's path and `[packs.NAME]` tables: they narrow
    /// the user's.
    pub packs: Option<(PathBuf, crate::pack_tables::PackTables)>,
    /// The project config's `[undo] enabled = false` turns undo snapshots
    /// off; its other `[undo]` keys are ignored.
    pub undo_off: bool,
    /// The trusted project directory and the pack hashes `xcsh trust`
    /// recorded for it.
    pub trusted: Option<(PathBuf, ProjectRecord)>,
    /// Whether the user trusts the working directory itself (its config
    /// unchanged since), whether or not it holds project files: only then
    /// is anything (the journal) written inside it.
    pub dir_trusted: bool,
}

/// The sources, in load order, and the settings of the config files read.
#[derive(Debug, Default)]
pub struct Collected {
    /// Every source, in load order.
    pub sources: Vec<Source>,
    /// Settings from the config files.
    pub settings: Settings,
    /// Project files skipped because the directory is not trusted (or
    /// changed since), and tables of a trusted project's config that only
    /// the user's config may set: one line each.
    pub skipped: Vec<SourceWarning>,
    /// The trusted project's pack registry, unchanged since it was
    /// trusted, when it has one.
    pub project_registry: Option<UsedRegistry>,
}

/// Every source, in load order, and the config files' settings. `env` is
/// the value of [`PLUGIN_PATH_ENV`].
///
/// # Errors
///
/// An unreadable or invalid config file.
pub fn collect(
    args: &PackArgs,
    cwd: &Path,
    env: Option<&OsStr>,
    user: &UserDirs,
) -> anyhow::Result<Collected> {
    let source = |path: &Path, origin: Origin, expect| Source {
        path: cwd.join(path),
        origin,
        expect,
    };
    let mut sources = Vec::new();
    for path in &args.plugins {
        sources.push(source(path, Origin::PluginFlag, Expect::File));
    }
    for path in &args.plugin_dirs {
        sources.push(source(path, Origin::PluginDirFlag, Expect::Dir));
    }
    for path in env.map(std::env::split_paths).into_iter().flatten() {
        if !path.as_os_str().is_empty() {
            sources.push(source(&path, Origin::Env, Expect::Either));
        }
    }
    let mut settings = Settings::default();
    let mut skipped = Vec::new();
    let user_config = user.config.as_ref().map(|d| d.join(CONFIG_FILE_NAME));
    let user_plugins = user.data.as_ref().map(|d| d.join("plugins"));
    let project = Project::at(cwd);
    let project_is_users = is_users(&project, user);
    let store = trust_store(user)?;
    settings.project.dir_trusted = project_is_users || project.in_use(&store).is_ok();
    let mut project_dir_source = None;
    let mut project_registry = None;
    if !project_is_users {
        match project.judge(&store)? {
            Verdict::Absent => {}
            Verdict::Skipped(warning) => skipped.push(warning),
            Verdict::Trusted { config, record } => {
                tracing::info!(dir = %project.dir.display(), "trusted project");
                if let Some(config) = &config {
                    // Isolation grants capabilities, the journal records
                    // what the project does, and the model (with whose key)
                    // reads it: the user's alone. Said as a
                    // warning of the session, so every front end (and
                    // `xcsh tools`' report) says it the same way.
                    let users_only = [
                        (config.isolation.is_some(), "isolation", "isolation is set"),
                        (config.journal.is_some(), "journal", "the journal is set"),
                        (config.model.is_some(), "model", "the model is set"),
                    ];
                    for (_, table, what) in users_only.into_iter().filter(|(set, ..)| *set) {
                        skipped.push(SourceWarning {
                            path: project.config.clone(),
                            origin: Origin::ProjectConfig(project.config.clone()),
                            problem: crate::warning::Problem::UsersOnly { table, what },
                        });
                    }
                    settings.project.tool_timeout =
                        config_timeout(&project.config, config.tool_timeout_secs)?;
                    settings.project.approval.clone_from(&config.approval);
                    if !config.packs.is_empty() {
                        settings.project.packs =
                            Some((project.config.clone(), config.packs.clone()));
                    }
                    settings.project.undo_off =
                        config.undo.as_ref().is_some_and(|undo| !undo.enabled());
                    settings.project.allow_list = config.allow_list.as_ref().map(|list| {
                        let entries = list.iter().map(|(p, h)| (p.clone(), h.clone()));
                        (project.config.clone(), entries.collect())
                    });
                }
                let mut project_sources = project.sources(config.as_deref());
                project_dir_source = project_sources.pop();
                sources.extend(project_sources);
                match project.judge_registry(&record)? {
                    RegistryVerdict::Absent => {}
                    RegistryVerdict::Changed => skipped.push(project.registry_changed()),
                    RegistryVerdict::Trusted(registry) => {
                        let trust_file = user.data.as_ref().map(|d| d.join(TRUST_FILE_NAME));
                        project_registry = trust_file.map(|trust_file| UsedRegistry {
                            file: Arc::new(RegistryFile::project(&project.dir, trust_file)),
                            registry,
                        });
                    }
                }
                settings.project.trusted = Some((project.dir.clone(), record));
            }
        }
    }
    if let Some(path) = user_config
        && let Some(config) = Config::load(&path)?
    {
        tracing::info!(path = %path.display(), "read config file");
        settings.tool_timeout = config_timeout(&path, config.tool_timeout_secs)?;
        settings.allow_list = config.allow_list.map(|list| list.into_iter().collect());
        settings.isolation = config.isolation;
        settings.approval = config.approval;
        settings.journal = config.journal;
        settings.model = config.model;
        settings.packs = config.packs;
        settings.packs_file = (!settings.packs.is_empty()).then(|| path.clone());
        settings.undo = config.undo.map(|undo| *undo);
        let origin = Origin::Config(path);
        for plugin in config.plugins {
            sources.push(source(&plugin, origin.clone(), Expect::File));
        }
        for dir in config.plugin_dirs {
            sources.push(source(&dir, origin.clone(), Expect::Dir));
        }
    }
    if let Some((config, tables)) = &settings.project.packs {
        let (merged, ignored) = crate::pack_tables::narrow(&settings.packs, tables);
        settings.packs = merged;
        skipped.extend(ignored.into_iter().map(|widening| SourceWarning {
            path: config.clone(),
            origin: Origin::ProjectConfig(config.clone()),
            problem: crate::warning::Problem::Widens(widening),
        }));
    }
    sources.extend(project_dir_source);
    if let Some(dir) = user_plugins {
        sources.push(source(&dir, Origin::DefaultDir, Expect::Dir));
    }
    Ok(Collected {
        sources,
        settings,
        skipped,
        project_registry,
    })
}

/// Whether the user trusts the working directory `cwd` (as
/// [`ProjectSettings::dir_trusted`] says), for commands that collect no
/// sources (`xcsh journal`).
///
/// # Errors
///
/// The trust store cannot be read or is refused.
pub fn dir_trusted(cwd: &Path, user: &UserDirs) -> anyhow::Result<bool> {
    let project = Project::at(cwd);
    Ok(is_users(&project, user) || project.in_use(&trust_store(user)?).is_ok())
}

/// The user's trust store; empty without a data directory.
fn trust_store(user: &UserDirs) -> anyhow::Result<TrustStore> {
    match &user.data {
        Some(data) => TrustStore::load(&data.join(TRUST_FILE_NAME)),
        None => Ok(TrustStore::default()),
    }
}

/// A working directory whose `.xcsh` is the user's own directory is the
/// user's, not a project's.
fn is_users(project: &Project, user: &UserDirs) -> bool {
    let user_config = user.config.as_ref().map(|d| d.join(CONFIG_FILE_NAME));
    let user_plugins = user.data.as_ref().map(|d| d.join("plugins"));
    let user_registry = user.data.as_ref().map(|d| d.join(REGISTRY_FILE_NAME));
    user_config
        .as_ref()
        .is_some_and(|user| canonical(user) == canonical(&project.config))
        || user_plugins
            .as_ref()
            .is_some_and(|user| canonical(user) == canonical(&project.plugins))
        || user_registry
            .as_ref()
            .is_some_and(|user| canonical(user) == canonical(&project.registry))
}

/// A config's `tool_timeout_secs` as a duration.
fn config_timeout(path: &Path, secs: Option<f64>) -> anyhow::Result<Option<Duration>> {
    secs.map(|secs| {
        Duration::try_from_secs_f64(secs).map_err(|_| {
            anyhow::anyhow!(
                "invalid config file {}: tool_timeout_secs must be a number of seconds, 0 or more",
                path.display()
            )
        })
    })
    .transpose()
}

#[cfg(test)]
mod tests;
