//! Which files an edit visits: the file given, or a `.gitignore`-aware
//! walk of the directory given.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use crate::Language;
use crate::filter::GlobFilter;

/// The files to search, in a stable order, and what the walk could not read.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Files to search.
    pub files: Vec<PathBuf>,
    /// Paths the walk failed on, with the one-line cause.
    pub errors: Vec<(PathBuf, String)>,
}

/// Lists the files under `root` to search.
///
/// A file `root` is searched whatever its extension, so that an explicit
/// path always counts. A directory is walked honouring `.gitignore`,
/// `.ignore` and hidden-file rules (also outside a git repository, as a
/// user reading `.gitignore` would expect), keeping only files of
/// `language` that pass `filter` (matched relative to `root`).
pub(crate) fn walk(root: &Path, is_dir: bool, language: Language, filter: &GlobFilter) -> Walk {
    let mut walk = Walk::default();
    if !is_dir {
        walk.files.push(root.to_path_buf());
        return walk;
    }
    let walker = WalkBuilder::new(root)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let is_file = entry.file_type().is_some_and(|t| t.is_file());
                let path = entry.path();
                let relative = path.strip_prefix(root).unwrap_or(path);
                if is_file && language.matches_path(path) && filter.allows(relative) {
                    walk.files.push(entry.into_path());
                }
            }
            Err(error) => {
                let path = error_path(&error).unwrap_or_else(|| root.to_path_buf());
                walk.errors.push((path, error.to_string()));
            }
        }
    }
    walk
}

fn error_path(error: &ignore::Error) -> Option<PathBuf> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn names(walk: &Walk, root: &Path) -> Vec<String> {
        walk.files
            .iter()
            .map(|p| {
                p.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect()
    }

    #[test]
    fn walk_honours_gitignore_language_and_globs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("src/gen")).unwrap();
        fs::create_dir_all(root.join("target")).unwrap();
        fs::write(root.join(".gitignore"), "target/\n").unwrap();
        for file in [
            "src/a.rs",
            "src/gen/b.rs",
            "src/c.py",
            "target/d.rs",
            "e.rs",
        ] {
            fs::write(root.join(file), "").unwrap();
        }
        let all = walk(root, true, Language::Rust, &GlobFilter::new(&[]).unwrap());
        assert_eq!(names(&all, root), ["e.rs", "src/a.rs", "src/gen/b.rs"]);

        let globs = ["src/**".to_owned(), "!src/gen/**".to_owned()];
        let some = walk(
            root,
            true,
            Language::Rust,
            &GlobFilter::new(&globs).unwrap(),
        );
        assert_eq!(names(&some, root), ["src/a.rs"]);
    }

    #[test]
    fn an_explicit_file_is_searched_whatever_its_extension() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("script");
        fs::write(&script, "print(1)\n").unwrap();
        let walk = walk(
            &script,
            false,
            Language::Python,
            &GlobFilter::new(&[]).unwrap(),
        );
        assert_eq!(walk.files, [script]);
    }
}
