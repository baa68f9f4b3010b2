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

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use xcsh_loader::discover::pack_files_in;

use crate::cli::PackArgs;
use crate::config::{CONFIG_FILE_NAME, Config};

/// The environment variable listing pack files and directories, in the OS's
/// path-list syntax (`:`-separated on Unix, `;` on Windows).
pub const PLUGIN_PATH_ENV: &str = "XCSH_PLUGIN_PATH";

/// The project directory, relative to the working directory.
const PROJECT_DIR: &str = ".xcsh";

/// Where a path came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// `--plugin`.
    PluginFlag,
    /// `--plugin-dir`.
    PluginDirFlag,
    /// [`PLUGIN_PATH_ENV`].
    Env,
    /// A config file.
    Config(PathBuf),
    /// A default directory.
    DefaultDir,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PluginFlag => f.write_str("--plugin"),
            Self::PluginDirFlag => f.write_str("--plugin-dir"),
            Self::Env => f.write_str(PLUGIN_PATH_ENV),
            Self::Config(path) => write!(f, "config {}", path.display()),
            Self::DefaultDir => f.write_str("default directory"),
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// The first config's `tool_timeout_secs` (the working directory's
    /// wins over the user's).
    pub tool_timeout: Option<Duration>,
    /// Every config's `allow_list` entries; `None` when no config has one.
    pub allow_list: Option<Vec<(PathBuf, String)>>,
    /// The user's config's `[isolation]` table (a project's is ignored).
    pub isolation: Option<crate::isolate::IsolationConfig>,
}

/// The sources, in load order, and the settings of the config files read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Collected {
    /// Every source, in load order.
    pub sources: Vec<Source>,
    /// Settings from the config files.
    pub settings: Settings,
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
    let project = cwd.join(PROJECT_DIR);
    let mut configs = vec![project.join(CONFIG_FILE_NAME)];
    let user_config = user.config.as_ref().map(|d| d.join(CONFIG_FILE_NAME));
    configs.extend(user_config.clone());
    let mut seen = HashSet::new();
    let mut settings = Settings::default();
    for path in configs {
        if !seen.insert(canonical(&path)) {
            continue;
        }
        let Some(config) = Config::load(&path)? else {
            tracing::debug!(path = %path.display(), "no config file");
            continue;
        };
        tracing::info!(path = %path.display(), "read config file");
        if settings.tool_timeout.is_none()
            && let Some(secs) = config.tool_timeout_secs
        {
            settings.tool_timeout = Some(Duration::try_from_secs_f64(secs).map_err(|_| {
                anyhow::anyhow!(
                    "invalid config file {}: tool_timeout_secs must be a number of seconds, 0 or more",
                    path.display()
                )
            })?);
        }
        if let Some(isolation) = config.isolation {
            // Isolation grants capabilities: the user's policy alone.
            if user_config.as_deref().map(canonical) == Some(canonical(&path)) {
                settings.isolation = Some(isolation);
            } else {
                tracing::warn!(
                    "Ignoring [isolation] in {}: isolation is set in the user's config file only",
                    path.display()
                );
            }
        }
        if let Some(allow) = config.allow_list {
            settings
                .allow_list
                .get_or_insert_with(Vec::new)
                .extend(allow);
        }
        let origin = Origin::Config(path);
        for plugin in config.plugins {
            sources.push(source(&plugin, origin.clone(), Expect::File));
        }
        for dir in config.plugin_dirs {
            sources.push(source(&dir, origin.clone(), Expect::Dir));
        }
    }
    let defaults = [
        Some(project.join("plugins")),
        user.data.as_ref().map(|d| d.join("plugins")),
    ];
    for dir in defaults.into_iter().flatten() {
        sources.push(source(&dir, Origin::DefaultDir, Expect::Dir));
    }
    Ok(Collected { sources, settings })
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
        }
    }
}

/// The library files the sources name, in load order and each once (by
/// canonical path), and a warning per source that named nothing usable.
#[derive(Debug, Default)]
pub struct Discovery {
    /// Library files to load.
    pub packs: Vec<PathBuf>,
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
                        discovery.packs.push(file);
                    }
                }
            }
            Err(Problem::NotFound) if source.origin == Origin::DefaultDir => {
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
