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
//! ([`crate::installed`]).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use xcsh_loader::discover::pack_files_in;

use crate::cli::PackArgs;
use crate::config::{CONFIG_FILE_NAME, Config};
use crate::installed::{REGISTRY_FILE_NAME, RegistryFile, UsedRegistry};
use crate::project::{
    Project, RegistryVerdict, Verdict, changed_since_trusted, not_trusted, shell_word,
};
use crate::trust_store::{ProjectRecord, TRUST_FILE_NAME, TrustStore};

/// The environment variable listing pack files and directories, in the OS's
/// path-list syntax (`:`-separated on Unix, `;` on Windows).
pub const PLUGIN_PATH_ENV: &str = "XCSH_PLUGIN_PATH";

/// Where a path came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `--plugin`.
    PluginFlag,
    /// `--plugin-dir`.
    PluginDirFlag,
    /// [`PLUGIN_PATH_ENV`].
    Env,
    /// The user's config file.
    Config(PathBuf),
    /// A default directory of the user's.
    DefaultDir,
    /// The working directory's `.xcsh/config.toml`.
    ProjectConfig(PathBuf),
    /// The working directory's `.xcsh/plugins` (or the project itself).
    ProjectDir,
}

impl Origin {
    /// True for what a project directory ships (trusted only by
    /// `xcsh trust`).
    pub fn is_project(&self) -> bool {
        matches!(self, Self::ProjectConfig(_) | Self::ProjectDir)
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PluginFlag => f.write_str("--plugin"),
            Self::PluginDirFlag => f.write_str("--plugin-dir"),
            Self::Env => f.write_str(PLUGIN_PATH_ENV),
            Self::Config(path) | Self::ProjectConfig(path) => {
                write!(f, "config {}", path.display())
            }
            Self::DefaultDir | Self::ProjectDir => f.write_str("default directory"),
        }
    }
}

/// What a source's path should be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A library file.
    File,
    /// A directory of library files.
    Dir,
    /// Either (entries of [`PLUGIN_PATH_ENV`]).
    Either,
}

/// One path to look at for packs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The path, absolute when the working directory is.
    pub path: PathBuf,
    /// Where it came from.
    pub origin: Origin,
    /// File, directory or either.
    pub expect: Expect,
}

/// The user's per-user directories for xcsh (`…/xcsh`), when the OS has them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserDirs {
    /// The user's xcsh config directory, e.g. `~/.config/xcsh`.
    pub config: Option<PathBuf>,
    /// The user's xcsh data directory, e.g. `~/.local/share/xcsh`.
    pub data: Option<PathBuf>,
}

impl UserDirs {
    /// The OS's directories (XDG on Linux, `Library/Application Support`
    /// on macOS, the known folders on Windows).
    pub fn from_os() -> Self {
        Self {
            config: dirs::config_dir().map(|d| d.join("xcsh")),
            data: dirs::data_dir().map(|d| d.join("xcsh")),
        }
    }
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
    pub isolation: Option<crate::isolate::IsolationConfig>,
    /// The user's config's `[approval]` table.
    pub approval: Option<crate::config::ApprovalConfig>,
    /// The user's config's `[journal]` table (a project's is ignored: the
    /// journal records what a project does, so it is not the project's to
    /// move or turn off).
    pub journal: Option<crate::config::JournalConfig>,
    /// The user's config's `[model]` table (a project's is ignored: which
    /// model sees the project, and with whose key, is the user's choice).
    pub model: Option<Box<crate::config::ModelConfig>>,
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
    /// The trusted project directory and the pack hashes `xcsh trust`
    /// recorded for it.
    pub trusted: Option<(PathBuf, ProjectRecord)>,
}

/// The sources, in load order, and the settings of the config files read.
#[derive(Debug, Default)]
pub struct Collected {
    /// Every source, in load order.
    pub sources: Vec<Source>,
    /// Settings from the config files.
    pub settings: Settings,
    /// Project files skipped because the directory is not trusted (or
    /// changed since): one line each.
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
    // A working directory whose `.xcsh` is the user's own directory is the
    // user's, not a project's.
    let user_registry = user.data.as_ref().map(|d| d.join(REGISTRY_FILE_NAME));
    let project_is_users = user_config
        .as_ref()
        .is_some_and(|user| canonical(user) == canonical(&project.config))
        || user_plugins
            .as_ref()
            .is_some_and(|user| canonical(user) == canonical(&project.plugins))
        || user_registry
            .as_ref()
            .is_some_and(|user| canonical(user) == canonical(&project.registry));
    let store = match &user.data {
        Some(data) => TrustStore::load(&data.join(TRUST_FILE_NAME))?,
        None => TrustStore::default(),
    };
    let mut project_dir_source = None;
    let mut project_registry = None;
    if !project_is_users {
        match project.judge(&store)? {
            Verdict::Absent => {}
            Verdict::Skipped(warning) => skipped.push(warning),
            Verdict::Trusted { config, record } => {
                tracing::info!(dir = %project.dir.display(), "trusted project");
                if let Some(config) = &config {
                    if config.model.is_some() {
                        // Which model reads the project, with whose key, is
                        // the user's choice.
                        tracing::warn!(
                            "Ignoring [model] in {}: the model is set in the user's config file only",
                            project.config.display()
                        );
                    }
                    if config.isolation.is_some() {
                        // Isolation grants capabilities: the user's policy alone.
                        tracing::warn!(
                            "Ignoring [isolation] in {}: isolation is set in the user's config file only",
                            project.config.display()
                        );
                    }
                    settings.project.tool_timeout =
                        config_timeout(&project.config, config.tool_timeout_secs)?;
                    settings.project.approval.clone_from(&config.approval);
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
        let origin = Origin::Config(path);
        for plugin in config.plugins {
            sources.push(source(&plugin, origin.clone(), Expect::File));
        }
        for dir in config.plugin_dirs {
            sources.push(source(&dir, origin.clone(), Expect::Dir));
        }
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

/// Why a source gave no packs.
#[derive(Debug)]
pub enum Problem {
    /// Nothing at that path.
    NotFound,
    /// A file where a directory was expected.
    NotADirectory,
    /// A directory where a library file was expected.
    IsADirectory,
    /// The path could not be read.
    Unreadable(io::Error),
    /// The project directory (the warning's path) holds these files and is
    /// not trusted.
    NotTrusted(String),
    /// A file of the project directory (its config, or its pack registry)
    /// changed since it was trusted; the files `skipped` were skipped.
    ChangedSinceTrusted {
        /// What was skipped.
        skipped: String,
        /// The file that changed.
        changed: PathBuf,
    },
    /// A pack (the warning's path) that was not there when this project
    /// directory was trusted.
    NewSinceTrusted(PathBuf),
}

/// A source that names a path giving no packs: reported, never fatal.
#[derive(Debug)]
pub struct SourceWarning {
    /// The path.
    pub path: PathBuf,
    /// Where it came from.
    pub origin: Origin,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for SourceWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (path, origin) = (self.path.display(), &self.origin);
        match &self.problem {
            Problem::NotFound => write!(f, "Plugin path not found: {path} (from {origin})"),
            Problem::NotADirectory => write!(
                f,
                "Plugin directory is a file: {path} (from {origin}); use --plugin for one pack"
            ),
            Problem::IsADirectory => write!(
                f,
                "Plugin path is a directory: {path} (from {origin}); use --plugin-dir for a directory"
            ),
            Problem::Unreadable(error) => {
                write!(f, "Cannot read plugin path {path} (from {origin}): {error}")
            }
            Problem::NotTrusted(what) => {
                write!(f, "Skipped {what}: {}", not_trusted(&self.path))
            }
            Problem::ChangedSinceTrusted { skipped, changed } => write!(
                f,
                "Skipped {skipped}: {}",
                changed_since_trusted(changed, &self.path)
            ),
            Problem::NewSinceTrusted(project) => write!(
                f,
                "Skipped {path}: new in {} since it was trusted (to trust it again: xcsh trust {})",
                project.display(),
                shell_word(project)
            ),
        }
    }
}

/// The library files the sources name, in load order and each once (by
/// canonical path), and a warning per source that named nothing usable.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Library files to load.
    pub packs: Vec<PathBuf>,
    /// Those of [`packs`](Self::packs) a project directory named (first).
    pub from_project: Vec<PathBuf>,
    /// What was skipped, one line each.
    pub warnings: Vec<SourceWarning>,
}

/// Lists the library files of `sources`.
pub fn discover(sources: &[Source]) -> Discovery {
    let mut discovery = Discovery::default();
    let mut seen = HashSet::new();
    for source in sources {
        match files_of(source) {
            Ok(files) => {
                for file in files {
                    if seen.insert(canonical(&file)) {
                        if source.origin.is_project() {
                            discovery.from_project.push(file.clone());
                        }
                        discovery.packs.push(file);
                    }
                }
            }
            Err(Problem::NotFound)
                if matches!(source.origin, Origin::DefaultDir | Origin::ProjectDir) =>
            {
                tracing::debug!(path = %source.path.display(), "no default plugin directory");
            }
            Err(problem) => discovery.warnings.push(SourceWarning {
                path: source.path.clone(),
                origin: source.origin.clone(),
                problem,
            }),
        }
    }
    discovery
}

fn files_of(source: &Source) -> Result<Vec<PathBuf>, Problem> {
    let metadata = std::fs::metadata(&source.path).map_err(|error| match error.kind() {
        io::ErrorKind::NotFound => Problem::NotFound,
        _ => Problem::Unreadable(error),
    })?;
    match (metadata.is_dir(), source.expect) {
        (true, Expect::File) => Err(Problem::IsADirectory),
        (false, Expect::Dir) => Err(Problem::NotADirectory),
        (true, _) => {
            let files = pack_files_in(&source.path).map_err(Problem::Unreadable)?;
            tracing::debug!(dir = %source.path.display(), count = files.len(), "listed plugin directory");
            Ok(files)
        }
        (false, _) => Ok(vec![source.path.clone()]),
    }
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests;
