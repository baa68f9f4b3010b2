//! Planning a batch rename: every check that can fail happens here, before
//! anything is pushed.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use xcsh_plugin_api::fs::name;

use crate::BatchRenameParams;
use crate::rule::CompiledRule;

/// One file's move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rename {
    /// The file as the caller named it (bytes that are not UTF-8 as
    /// `\xNN`, as [`name::as_text`] writes them).
    pub from_display: String,
    /// The new path, written the same way.
    pub to_display: String,
    /// The file relative to the working directory, as it is on disk.
    pub from_relative: PathBuf,
    /// The new path relative to the working directory.
    pub to_relative: PathBuf,
    /// The file's full path.
    pub from: PathBuf,
    /// The new full path (same directory).
    pub to: PathBuf,
    /// The directory the rename happens in, symlinks resolved at the
    /// preview (inside the working directory); apply checks it still is.
    pub directory: PathBuf,
}

/// The renames a rule gives, checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenamePlan {
    /// Files whose name changes, in the order given.
    pub renames: Vec<Rename>,
    /// Files the rule leaves as they are.
    pub unchanged: Vec<String>,
}

/// Why a plan was refused. Each names the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The rule is invalid (e.g. a bad regex).
    Rule(String),
    /// A listed file does not exist or is not a regular file.
    MissingSource(String),
    /// A listed file, or the directory it would be renamed in, resolves
    /// (after symlinks) outside the working directory.
    OutsideRoot {
        /// The file as listed.
        file: String,
        /// Where it leads.
        resolved: PathBuf,
    },
    /// A file is listed twice.
    Duplicate(String),
    /// The new name is empty, `.`/`..`, or contains a path separator.
    InvalidName {
        /// The file.
        file: String,
        /// The refused new name.
        name: String,
    },
    /// Two files would get the same new name.
    Collision {
        /// The first file.
        first: String,
        /// The second file.
        second: String,
        /// The shared target.
        target: String,
    },
    /// The new name is taken by a file that stays.
    TargetExists {
        /// The file.
        file: String,
        /// The existing target.
        target: String,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Rule(message) => f.write_str(message),
            Self::MissingSource(file) => write!(f, "{file}: no such file"),
            Self::OutsideRoot { file, resolved } => write!(
                f,
                "{file}: outside the working directory (it resolves to {}); \
                 batch-rename only renames files inside it",
                name::shown(resolved)
            ),
            Self::Duplicate(file) => write!(f, "{file}: listed more than once"),
            Self::InvalidName { file, name } => {
                write!(f, "{file}: the rule gives an invalid file name {name:?}")
            }
            Self::Collision {
                first,
                second,
                target,
            } => write!(f, "{first} and {second} would both be renamed to {target}"),
            Self::TargetExists { file, target } => {
                write!(f, "{file}: {target} already exists")
            }
        }
    }
}

impl std::error::Error for PlanError {}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains('/')
        && !name.contains(std::path::MAIN_SEPARATOR)
        && !name.contains('\0')
}

/// The real paths of `from` (listed as `file`) and of the directory it is
/// renamed in, if both resolve inside `root`.
///
/// The directory is checked on its own because a rename does not follow
/// a symlink in the last component: `link.txt` is renamed as a link, in
/// the directory that holds it.
fn confined(root: &Path, from: &Path, file: &str) -> Result<(PathBuf, PathBuf), PlanError> {
    let missing = |_| PlanError::MissingSource(file.to_owned());
    let resolved = std::fs::canonicalize(from).map_err(missing)?;
    let parent = from.parent().unwrap_or(from);
    let directory = std::fs::canonicalize(parent).map_err(missing)?;
    for path in [&resolved, &directory] {
        if !path.starts_with(root) {
            return Err(PlanError::OutsideRoot {
                file: file.to_owned(),
                resolved: path.clone(),
            });
        }
    }
    Ok((resolved, directory))
}

impl RenamePlan {
    /// Plans `params` for files under `cwd`.
    ///
    /// A file is taken as [`name::given`] takes it: literally, or, when
    /// nothing exists there and it holds `\xNN` escapes of bytes 0x80 and
    /// above, as the name with those bytes (how this tool prints it). A
    /// name that is not UTF-8 is renamed as text with those bytes written
    /// `\xNN`, and the new name keeps them as bytes.
    ///
    /// Every file must lie inside `cwd` once symlinks are resolved, both
    /// the file and the directory it is renamed in (`..`, absolute paths
    /// and symlinks leading out are refused). The pack only learns the
    /// working directory from the host, so there is no way to allow more.
    ///
    /// # Errors
    ///
    /// The first [`PlanError`] found.
    pub fn new(cwd: &Path, params: &BatchRenameParams) -> Result<Self, PlanError> {
        let rule = CompiledRule::new(&params.rule).map_err(PlanError::Rule)?;
        let root = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        let mut plan = Self::default();
        let mut sources = HashSet::new();
        for file in &params.files {
            let relative = name::given(cwd, file);
            let from = cwd.join(&relative);
            if !from.is_file() {
                return Err(PlanError::MissingSource(file.clone()));
            }
            let (identity, directory) = confined(&root, &from, file)?;
            if !sources.insert(identity) {
                return Err(PlanError::Duplicate(file.clone()));
            }
            let old_name = from
                .file_name()
                .ok_or_else(|| PlanError::MissingSource(file.clone()))?;
            let utf8 = old_name.to_str().is_some();
            let old_name = name::as_text(Path::new(old_name)).into_owned();
            let new_name = rule.rename(&old_name);
            if new_name == old_name {
                plan.unchanged.push(file.clone());
                continue;
            }
            if !valid_name(&new_name) {
                return Err(PlanError::InvalidName {
                    file: file.clone(),
                    name: new_name,
                });
            }
            // A name that was bytes stays bytes: its `\xNN` are read back.
            let new_name = if utf8 {
                PathBuf::from(new_name)
            } else {
                name::from_text(&new_name)
            };
            let to_relative = relative.with_file_name(&new_name);
            plan.renames.push(Rename {
                from_display: name::as_text(&relative).into_owned(),
                to_display: name::as_text(&to_relative).into_owned(),
                to: from.with_file_name(&new_name),
                from_relative: relative,
                to_relative,
                from,
                directory,
            });
        }
        plan.check_targets()?;
        Ok(plan)
    }

    fn check_targets(&self) -> Result<(), PlanError> {
        let mut targets: HashMap<&Path, &Rename> = HashMap::new();
        for rename in &self.renames {
            if let Some(first) = targets.insert(&rename.to, rename) {
                return Err(PlanError::Collision {
                    first: first.from_display.clone(),
                    second: rename.from_display.clone(),
                    target: rename.to_display.clone(),
                });
            }
            // Every source exists, so this also refuses a target that is
            // itself renamed away: that would need an ordering (or a swap
            // through a temporary name), and a mistake would overwrite.
            if rename.to.exists() {
                return Err(PlanError::TargetExists {
                    file: rename.from_display.clone(),
                    target: rename.to_display.clone(),
                });
            }
        }
        Ok(())
    }

    /// `n file` / `n files`.
    pub fn count_text(&self) -> String {
        let n = self.renames.len();
        format!("{n} file{}", if n == 1 { "" } else { "s" })
    }

    /// One `old → new` line per rename, each name as xcsh prints paths
    /// ([`name::shown`]): control characters written as escapes (`\n`,
    /// `\r`, `\u{1b}`), so a name holding a line break is still one line
    /// and cannot draw a line of its own, and bytes that are not UTF-8 as
    /// `\xNN`.
    pub fn lines(&self) -> Vec<String> {
        self.renames
            .iter()
            .map(|r| {
                format!(
                    "{} → {}",
                    name::shown(&r.from_relative),
                    name::shown(&r.to_relative)
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
