//! The library files a list of sources names, each once, and a warning per
//! source that named nothing usable.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use xcsh_loader::discover::pack_files_in;

use crate::source::{Expect, Origin, Source};
use crate::warning::{Problem, SourceWarning};

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
        io::ErrorKind::NotFound => match rlib_beside(&source.path) {
            Some(rlib) if source.expect != Expect::Dir => Problem::OnlyAnRlib(rlib),
            _ => Problem::NotFound,
        },
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

/// The `rlib` a crate built without `crate-type = ["cdylib", …]` leaves
/// where its library `path` (`lib{name}.so`, `.dylib`, `{name}.dll`)
/// would be: `lib{name}.rlib` beside it, if there is one.
fn rlib_beside(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(std::env::consts::DLL_SUFFIX)?
        .strip_prefix(std::env::consts::DLL_PREFIX)?;
    let rlib = path.with_file_name(format!("lib{stem}.rlib"));
    rlib.is_file().then_some(rlib)
}

/// `path` canonicalised, or as it is when it cannot be.
pub(crate) fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
