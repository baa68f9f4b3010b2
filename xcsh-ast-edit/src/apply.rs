//! Applying a previewed edit: each file locked, checked and written in
//! place, skipping files that changed since the preview.

use std::fs::{self, File};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde_json::json;
use sha2::{Digest, Sha256};
use xcsh_core::{ToolError, ToolOutput};

use crate::label::count;
use crate::source::{SkipReason, open_regular, read_limited};

/// The SHA-256 of a file's bytes, taken at preview time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ContentHash([u8; 32]);

impl ContentHash {
    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }
}

/// One file's previewed edit, as the pending action keeps it.
#[derive(Clone, Debug)]
pub(crate) struct PlannedWrite {
    /// Where the file is on disk (symlinks resolved, so a write never
    /// replaces a link with a regular file).
    pub path: PathBuf,
    /// How messages name it.
    pub display: String,
    /// How many replacements the preview made in it.
    pub replacements: usize,
    /// The hash of the content the preview read.
    pub original: ContentHash,
    /// The content the preview showed.
    pub new_content: String,
}

/// Writes every planned file whose content is still what the preview read.
///
/// - A file that changed since the preview (or is gone) is *stale*: it is
///   listed and left exactly as it is now.
/// - A file that already holds the previewed content counts as applied
///   without a write, so applying again after a partial failure finishes
///   the job instead of calling the written files stale.
///
/// # Errors
///
/// - If every file is stale, nothing was written: the apply fails so the
///   action stays pending and the user sees a failure rather than an
///   "applied" that changed nothing. The message tells the model to
///   discard and preview again (re-applying cannot succeed).
/// - If a write fails, the apply fails naming the file; files written so
///   far stay written and are recognised on the next apply.
pub(crate) fn apply(writes: &[PlannedWrite]) -> Result<ToolOutput, ToolError> {
    let mut applied: Vec<&PlannedWrite> = Vec::new();
    let mut stale: Vec<&PlannedWrite> = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    for write in writes {
        match apply_one(write) {
            Ok(Outcome::Written) => applied.push(write),
            Ok(Outcome::Stale) => stale.push(write),
            Err(error) => failed.push(format!("{}: {error}", write.display)),
        }
    }
    let replacements: usize = applied.iter().map(|w| w.replacements).sum();
    let names = |writes: &[&PlannedWrite]| {
        writes
            .iter()
            .map(|w| w.display.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !failed.is_empty() {
        let mut message = format!("could not write {}", failed.join("; "));
        if !applied.is_empty() {
            message.push_str(&format!(
                " ({} written; applying again finishes the rest)",
                count(applied.len(), "other file")
            ));
        }
        return Err(ToolError::new(message));
    }
    if applied.is_empty() && !stale.is_empty() {
        return Err(ToolError::new(format!(
            "every file changed since the preview, nothing was written (stale: {}). \
             Discard this action and run ast_edit again for a fresh preview.",
            names(&stale)
        )));
    }
    // The wording the issue fixed, `(s)` and all, so scripts can match it.
    let mut text = format!(
        "Applied {replacements} replacement(s) in {} file(s).",
        applied.len()
    );
    if !stale.is_empty() {
        text.push_str(&format!(
            "\nNot written, changed since the preview (stale): {}",
            names(&stale)
        ));
    }
    let details = json!({
        "appliedReplacements": replacements,
        "appliedFiles": applied.len(),
        "files": applied
            .iter()
            .map(|w| json!({"path": w.display, "replacements": w.replacements}))
            .collect::<Vec<_>>(),
        "stale": stale.iter().map(|w| w.display.as_str()).collect::<Vec<_>>(),
    });
    Ok(ToolOutput::text(text).with_details(details))
}

enum Outcome {
    Written,
    Stale,
}

/// Checks and writes one file, holding an exclusive lock on it from the
/// read that checks it to the end of the write.
///
/// Another `ast_edit` apply of the same file (in this process or another,
/// through any hard link) waits for the lock and then finds the content
/// changed, so it reports the file stale instead of overwriting the edit.
/// The lock is advisory: an editor that does not take it can still write
/// between the check and the write, as with any tool that edits files.
fn apply_one(write: &PlannedWrite) -> io::Result<Outcome> {
    // The preview resolved every symlink; a path that leads elsewhere now
    // (a directory swapped for a link) is not the file that was previewed.
    match fs::canonicalize(&write.path) {
        Ok(resolved) if resolved == write.path => {}
        Ok(_) => return Ok(Outcome::Stale),
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Outcome::Stale),
        Err(error) => return Err(error),
    }
    let mut file = match open_regular(&write.path, true) {
        Ok(file) => file,
        Err(SkipReason::Unreadable(error)) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(Outcome::Stale);
        }
        Err(SkipReason::Unreadable(error)) => return Err(error),
        Err(reason) => return Err(io::Error::other(reason.to_string())),
    };
    file.lock()?;
    let current = match read_limited(&mut file) {
        Ok(bytes) => bytes,
        // It was within the limit at the preview, so it changed.
        Err(SkipReason::TooLarge) => return Ok(Outcome::Stale),
        Err(reason) => return Err(io::Error::other(reason.to_string())),
    };
    if ContentHash::of(&current) == write.original {
        write_in_place(
            &mut file,
            &write.path,
            &current,
            write.new_content.as_bytes(),
        )?;
        Ok(Outcome::Written)
    } else if current == write.new_content.as_bytes() {
        Ok(Outcome::Written)
    } else {
        Ok(Outcome::Stale)
    }
    // Closing the file releases the lock.
}

/// Overwrites the locked `file` (at `path`) with `contents`, keeping its
/// inode: hard links, owner, group, mode, ACLs and extended attributes
/// stay as they are, which a write-and-rename would lose.
///
/// A crash mid-write would leave the file half written, so the old
/// content (`original`) is first saved and flushed to a backup beside it,
/// `.{name}.ast_edit-backup-XXXXXX`, readable only by its owner, and
/// removed once the new content is on disk. A backup left behind means an
/// apply was interrupted: the file's old content is in it.
fn write_in_place(
    file: &mut File,
    path: &Path,
    original: &[u8],
    contents: &[u8],
) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
    let backup = save_backup(dir, &name, original).map_err(|error| {
        io::Error::new(
            error.kind(),
            format!("cannot save a backup of it before writing: {error}"),
        )
    })?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(contents)?;
    file.set_len(contents.len() as u64)?;
    file.sync_all()?;
    // The new content is on disk: the backup has served its purpose. A
    // failure to remove it loses nothing, so it does not fail the apply.
    if let Err(error) = backup.close() {
        tracing::warn!("could not remove the backup of {}: {error}", path.display());
    }
    Ok(())
}

fn save_backup(dir: &Path, name: &str, original: &[u8]) -> io::Result<tempfile::NamedTempFile> {
    let mut backup = tempfile::Builder::new()
        .prefix(&format!(".{name}.ast_edit-backup-"))
        .tempfile_in(dir)?;
    backup.write_all(original)?;
    backup.as_file().sync_all()?;
    Ok(backup)
}

#[cfg(test)]
mod tests;
