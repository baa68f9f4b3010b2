//! One place to look for tool packs: a path, where it came from and what
//! it should be.

use std::fmt;
use std::path::PathBuf;

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
