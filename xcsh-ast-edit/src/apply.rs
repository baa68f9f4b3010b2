//! Applying a previewed edit: per-file atomic writes, skipping files that
//! changed since the preview.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::json;
use sha2::{Digest, Sha256};
use xcsh_core::{ToolError, ToolOutput};

use crate::label::count;

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

fn apply_one(write: &PlannedWrite) -> io::Result<Outcome> {
    let current = match fs::read(&write.path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Outcome::Stale),
        Err(error) => return Err(error),
    };
    // The check and the rename are not one atomic step: an edit landing in
    // between is overwritten. The window is one write long.
    if ContentHash::of(&current) == write.original {
        write_atomically(&write.path, write.new_content.as_bytes())?;
        Ok(Outcome::Written)
    } else if current == write.new_content.as_bytes() {
        Ok(Outcome::Written)
    } else {
        Ok(Outcome::Stale)
    }
}

/// Replaces `path` with `contents` so that readers see the old file or the
/// new one, never half of it: write a temporary file next to it, give it
/// the old file's permissions, flush it, rename it over.
fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let permissions = fs::metadata(path)?.permissions();
    let mut temp = tempfile::Builder::new()
        .prefix(".ast_edit-")
        .tempfile_in(dir)?;
    temp.write_all(contents)?;
    temp.as_file().set_permissions(permissions)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests;
