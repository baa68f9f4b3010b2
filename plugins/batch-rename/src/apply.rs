//! Carrying out a rename plan without overwriting anything.

use std::fmt;
use std::io;
use std::path::Path;

use crate::{Rename, RenamePlan};

/// Why applying a plan stopped. Renames done before the failure are rolled
/// back, so the files are as they were.
#[derive(Debug)]
pub enum ApplyError {
    /// The source is gone since the preview.
    SourceGone(String),
    /// A directory on the file's path leads elsewhere than at the preview
    /// (swapped for a symlink): the rename could act outside the working
    /// directory.
    Relocated(String),
    /// The target exists now: nothing is overwritten.
    TargetExists(String),
    /// The OS refused a rename.
    Io {
        /// The file.
        file: String,
        /// The OS error.
        source: io::Error,
    },
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SourceGone(file) => write!(f, "{file} no longer exists"),
            Self::Relocated(file) => write!(
                f,
                "{file} is no longer where the preview found it (a directory on its path changed)"
            ),
            Self::TargetExists(target) => {
                write!(f, "refusing to overwrite {target}: it exists now")
            }
            Self::Io { file, source } => write!(f, "could not rename {file}: {source}"),
        }
    }
}

impl std::error::Error for ApplyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Moves `from` to `to`, failing if `to` exists.
///
/// A hard link followed by removing the source cannot overwrite (link
/// fails on an existing target); where links are not supported, a checked
/// rename is the fallback.
fn move_no_clobber(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::hard_link(from, to) {
        Ok(()) => std::fs::remove_file(from).inspect_err(|_| {
            let _ = std::fs::remove_file(to);
        }),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => {
            if to.symlink_metadata().is_ok() {
                return Err(io::Error::from(io::ErrorKind::AlreadyExists));
            }
            std::fs::rename(from, to)
        }
    }
}

/// Renames every file of `plan`, all or nothing.
///
/// # Errors
///
/// The first [`ApplyError`]; earlier renames are undone.
pub fn apply_plan(plan: &RenamePlan) -> Result<(), ApplyError> {
    let mut done: Vec<&Rename> = Vec::new();
    for rename in &plan.renames {
        if let Err(error) = apply_one(rename) {
            for undo in done.iter().rev() {
                if let Err(e) = move_no_clobber(&undo.to, &undo.from) {
                    // Nothing better to do than say so: the file is at its
                    // new name and its old one is taken.
                    eprintln!("batch-rename: could not undo {}: {e}", undo.to_display);
                }
            }
            return Err(error);
        }
        done.push(rename);
    }
    Ok(())
}

fn apply_one(rename: &Rename) -> Result<(), ApplyError> {
    if !rename.from.is_file() {
        return Err(ApplyError::SourceGone(rename.from_display.clone()));
    }
    let parent = rename.from.parent().unwrap_or(&rename.from);
    if std::fs::canonicalize(parent).ok().as_ref() != Some(&rename.directory) {
        return Err(ApplyError::Relocated(rename.from_display.clone()));
    }
    move_no_clobber(&rename.from, &rename.to).map_err(|source| {
        if source.kind() == io::ErrorKind::AlreadyExists {
            ApplyError::TargetExists(rename.to_display.clone())
        } else {
            ApplyError::Io {
                file: rename.from_display.clone(),
                source,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::fs;

    use tempfile::TempDir;

    use super::*;
    use crate::{BatchRenameParams, RenameRule};

    fn setup(files: &[&str]) -> (TempDir, RenamePlan) {
        let dir = TempDir::new().unwrap();
        for file in files {
            fs::write(dir.path().join(file), file.as_bytes()).unwrap();
        }
        let params = BatchRenameParams {
            files: files.iter().map(|f| f.to_string()).collect(),
            rule: RenameRule::Prefix {
                prefix: "new_".into(),
            },
        };
        let plan = RenamePlan::new(dir.path(), &params).unwrap();
        (dir, plan)
    }

    fn names(dir: &TempDir) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn renames_every_file_keeping_content() {
        let (dir, plan) = setup(&["a", "b"]);
        apply_plan(&plan).unwrap();
        assert_eq!(names(&dir), ["new_a", "new_b"]);
        assert_eq!(fs::read_to_string(dir.path().join("new_a")).unwrap(), "a");
    }

    #[test]
    fn a_target_created_after_the_preview_is_not_overwritten_and_nothing_moves() {
        let (dir, plan) = setup(&["a", "b"]);
        fs::write(dir.path().join("new_b"), "user's file").unwrap();
        let err = apply_plan(&plan).unwrap_err();
        assert_eq!(
            err.to_string(),
            "refusing to overwrite new_b: it exists now"
        );
        assert_eq!(names(&dir), ["a", "b", "new_b"], "first rename rolled back");
        assert_eq!(
            fs::read_to_string(dir.path().join("new_b")).unwrap(),
            "user's file"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_directory_swapped_for_a_link_out_since_the_preview_is_refused() {
        let dir = TempDir::new().unwrap();
        let outside = TempDir::new().unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(dir.path().join("sub/a"), "a").unwrap();
        let params = BatchRenameParams {
            files: vec!["sub/a".into()],
            rule: RenameRule::Prefix {
                prefix: "new_".into(),
            },
        };
        let plan = RenamePlan::new(dir.path(), &params).unwrap();
        fs::rename(dir.path().join("sub"), dir.path().join("moved")).unwrap();
        fs::write(outside.path().join("a"), "theirs").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("sub")).unwrap();

        let err = apply_plan(&plan).unwrap_err();
        assert_eq!(
            err.to_string(),
            "sub/a is no longer where the preview found it (a directory on its path changed)"
        );
        assert!(outside.path().join("a").exists());
        assert!(!outside.path().join("new_a").exists());
    }

    #[test]
    fn a_source_gone_since_the_preview_is_an_error() {
        let (dir, plan) = setup(&["a", "b"]);
        fs::remove_file(dir.path().join("b")).unwrap();
        let err = apply_plan(&plan).unwrap_err();
        assert_eq!(err.to_string(), "b no longer exists");
        assert_eq!(names(&dir), ["a"]);
    }
}
