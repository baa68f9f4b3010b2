//! What an apply changed: the difference between its two snapshots.

use git2::{Delta, DiffFindOptions, DiffOptions, Oid, Repository};
use serde::{Deserialize, Serialize};

use crate::{FileMeta, FileState, UndoError, names};

/// How one path changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// The file is new.
    Created,
    /// Its content or mode changed.
    Modified,
    /// It was removed.
    Deleted,
    /// It moved (`from` to `path`) with its content unchanged.
    Renamed,
}

/// One changed path of an apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// How it changed.
    pub kind: ChangeKind,
    /// The path (relative to the working directory; a rename's new path),
    /// as `xcsh_safe_fs::name::as_text` writes it: each byte that is not
    /// part of valid UTF-8 as `\xNN` (`xcsh_safe_fs::name::from_text`
    /// gives the bytes back).
    pub path: String,
    /// A rename's old path (the same form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// What was there before the apply (at `from` for a rename).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<FileState>,
    /// What the apply left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<FileState>,
    /// The permission bits, owner, group and modification time of what
    /// was there before (at `from` for a rename), as the snapshot saw
    /// them: what an undo puts back with the content. Absent in records
    /// of earlier versions (those restore mode 644 or 755).
    #[serde(
        default,
        rename = "beforeMeta",
        skip_serializing_if = "Option::is_none"
    )]
    pub before_meta: Option<FileMeta>,
}

impl Change {
    /// The paths this change touched.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.from.as_deref())
    }

    /// One line for people, e.g. `renamed draft.md → final.md`, each path
    /// as `xcsh_safe_fs::name::shown` prints it (`modified \xff.rs`).
    pub fn describe(&self) -> String {
        let path = names::shown(&self.path);
        match (self.kind, &self.from) {
            (ChangeKind::Renamed, Some(from)) => {
                format!("renamed {} → {path}", names::shown(from))
            }
            (ChangeKind::Created, _) => format!("created {path}"),
            (ChangeKind::Deleted, _) => format!("deleted {path}"),
            _ => format!("modified {path}"),
        }
    }
}

/// The changes from tree `before` to tree `after`, renames of identical
/// content found as renames, sorted by path.
pub(crate) fn between(
    repo: &Repository,
    before: Oid,
    after: Oid,
) -> Result<Vec<Change>, UndoError> {
    let (old, new) = (repo.find_tree(before)?, repo.find_tree(after)?);
    let mut options = DiffOptions::new();
    options.include_typechange(true);
    let mut diff = repo.diff_tree_to_tree(Some(&old), Some(&new), Some(&mut options))?;
    diff.find_similar(Some(
        DiffFindOptions::new().renames(true).exact_match_only(true),
    ))?;
    let state = |file: &git2::DiffFile<'_>| FileState::new(file.id(), u32::from(file.mode()));
    // The path's exact bytes (git2 gives them as a `Path` on Unix), kept
    // as the log's text form.
    let path = |file: &git2::DiffFile<'_>| file.path().map(names::stored).unwrap_or_default();
    let mut changes = Vec::new();
    for delta in diff.deltas() {
        let (old, new) = (delta.old_file(), delta.new_file());
        let change = match delta.status() {
            Delta::Added => Change {
                kind: ChangeKind::Created,
                path: path(&new),
                from: None,
                before: None,
                after: Some(state(&new)),
                before_meta: None,
            },
            Delta::Deleted => Change {
                kind: ChangeKind::Deleted,
                path: path(&old),
                from: None,
                before: Some(state(&old)),
                after: None,
                before_meta: None,
            },
            Delta::Renamed => Change {
                kind: ChangeKind::Renamed,
                path: path(&new),
                from: Some(path(&old)),
                before: Some(state(&old)),
                after: Some(state(&new)),
                before_meta: None,
            },
            _ => Change {
                kind: ChangeKind::Modified,
                path: path(&new),
                from: None,
                before: Some(state(&old)),
                after: Some(state(&new)),
                before_meta: None,
            },
        };
        changes.push(change);
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}
