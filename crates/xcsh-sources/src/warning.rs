//! Why a source gave no packs, worded for people, and the wording of the
//! skip lines of untrusted or changed project files.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use xcsh_text::shell_word;

use crate::source::Origin;

/// Why a source gave no packs.
#[derive(Debug)]
pub enum Problem {
    /// Nothing at that path.
    NotFound,
    /// Nothing at that path, but the crate's `rlib` (this path) is beside
    /// it: the crate is not built as a `cdylib`.
    OnlyAnRlib(PathBuf),
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
    /// A table of a trusted project's config (the warning's path) that
    /// only the user's config may set: `table` (e.g. `isolation`), said as
    /// `what` (e.g. `isolation is set`).
    UsersOnly {
        /// The table's name.
        table: &'static str,
        /// What the user's config alone does, as the line says it.
        what: &'static str,
    },
    /// A key of a trusted project's `[packs.NAME]` table (the warning's
    /// path) that would widen the user's configuration of the pack.
    Widens(crate::pack_tables::Widening),
    /// A `[packs.NAME]` table of a config file (the warning's path) that
    /// names no pack the session loaded or offers.
    UnknownPack(crate::pack_tables::UnknownTable),
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
        let (path, origin) = (xcsh_text::escape::path(&self.path), &self.origin);
        match &self.problem {
            Problem::NotFound => write!(f, "Plugin path not found: {path} (from {origin})"),
            Problem::OnlyAnRlib(rlib) => write!(
                f,
                "Plugin path not found: {path} (from {origin}); {} is there: the crate is built \
                 as an rlib only; add crate-type = [\"cdylib\", \"rlib\"] under [lib] in its \
                 Cargo.toml and rebuild",
                rlib.display()
            ),
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
            Problem::UsersOnly { table, what } => write!(
                f,
                "Ignoring [{table}] in {path}: {what} in the user's config file only"
            ),
            Problem::Widens(widening) => write!(
                f,
                "Ignoring [packs.{}] {} in {path}: {} (a project can only narrow a pack's configuration)",
                widening.pack, widening.key, widening.why
            ),
            Problem::UnknownPack(unknown) => {
                let table = &unknown.table;
                write!(
                    f,
                    "Ignoring [packs.{table}] in {path}: no pack named {table} is loaded (a pack's \
                     table is named by its package name, as xcsh tools lists it)"
                )?;
                match &unknown.closest {
                    Some(pack) => write!(f, "; did you mean [packs.{pack}]?"),
                    None => Ok(()),
                }
            }
            Problem::NewSinceTrusted(project) => write!(
                f,
                "Skipped {path}: new in {} since it was trusted (to trust it again: xcsh trust {})",
                xcsh_text::escape::path(project),
                shell_word(project)
            ),
        }
    }
}

/// `{dir} is not a trusted project (to trust it: xcsh trust {dir})`.
pub fn not_trusted(dir: &Path) -> String {
    format!(
        "{} is not a trusted project (to trust it: xcsh trust {})",
        xcsh_text::escape::path(dir),
        shell_word(dir)
    )
}

/// `{file} changed since {dir} was trusted (to trust it again: xcsh trust
/// {dir})`.
pub fn changed_since_trusted(file: &Path, dir: &Path) -> String {
    format!(
        "{} changed since {} was trusted (to trust it again: xcsh trust {})",
        xcsh_text::escape::path(file),
        xcsh_text::escape::path(dir),
        shell_word(dir)
    )
}
