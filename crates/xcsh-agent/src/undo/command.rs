//! `xcsh undo` (and the REPL's `undo`): the applies that can be undone,
//! and the undo of one after showing what it changed and asking. The
//! files come back from the store alone: no pack code runs. Every undo,
//! done or refused, is an entry of the working directory's journal.

use std::io::{self, Write};
use std::path::Path;

use serde_json::json;
use xcsh_core::{Journal as _, JournalEntry, JournalEvent};
use xcsh_sources::UserDirs;
use xcsh_sources::config::{CONFIG_FILE_NAME, Config};
use xcsh_text::escape_controls;
use xcsh_undo::{Plan, Store, UndoError, UndoRecord};

use crate::journal::writer::{FileJournal, PackOf};

/// What to undo: `xcsh undo`'s options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UndoRequest {
    /// The apply (`None`: the newest one not undone).
    pub id: Option<u64>,
    /// List the undoable applies instead.
    pub list: bool,
    /// Do not ask.
    pub yes: bool,
    /// Overwrite files changed since the apply too.
    pub force: bool,
}

/// An undo that could not run, one line.
pub type CommandError = Box<dyn std::error::Error + Send + Sync>;

/// Runs `request` in `cwd`: lists, or shows the apply's changes, asks
/// through `ask` (unless `yes`), restores and journals. `ask` gets `out`
/// to write its question to.
///
/// # Errors
///
/// The user's config is invalid, there is no data directory, the store
/// cannot be read, the undo is refused (files changed since, a later
/// apply of the same files, an unknown id) or a file cannot be written.
pub fn run<W: Write>(
    request: &UndoRequest,
    cwd: &Path,
    user: &UserDirs,
    ask: &mut dyn FnMut(&mut W) -> io::Result<bool>,
    out: &mut W,
) -> Result<(), CommandError> {
    let config = match &user.config {
        Some(dir) => Config::load(&dir.join(CONFIG_FILE_NAME))?,
        None => None,
    }
    .unwrap_or_default();
    let root = super::root(user.data.as_deref())
        .ok_or("no user data directory to keep undo snapshots in")?;
    let store = Store::open(&root, cwd, super::limits(config.undo.as_deref()))?;
    if let Err(error) = store.clean() {
        tracing::warn!("undo store cleanup failed: {error}");
    }
    if request.list {
        return list(&store, out);
    }
    let plan = match store.plan(request.id) {
        Ok(plan) => plan,
        Err(error @ (UndoError::NothingToUndo(_) | UndoError::AllUndone(_))) => {
            writeln!(out, "{error}")?;
            return Ok(());
        }
        Err(error) => return Err(error.into()),
    };
    describe(&plan, out)?;
    // A path a link now leads through is never restored, --force or not.
    let refused = (!plan.stale.is_empty() && !request.force) || !plan.linked.is_empty();
    if !plan.stale.is_empty() && request.force && plan.linked.is_empty() {
        writeln!(
            out,
            "Changed since the apply, overwritten (--force): {}",
            plan.stale
                .iter()
                .map(|path| xcsh_undo::shown(path))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    // A refused undo (files changed since, a link on the way) is not
    // asked about: it is refused, journaled and reported below.
    if !request.yes && !refused && !ask(out)? {
        writeln!(out, "Nothing was undone.")?;
        return Ok(());
    }
    let outcome = store.undo(&plan, request.force, "person");
    journal(cwd, user, config.journal.as_ref(), &entry(&plan, &outcome))?;
    let undo = outcome?;
    writeln!(out, "{}", done(&undo))?;
    Ok(())
}

/// Journals `entry` where a session in `cwd` would.
fn journal(
    cwd: &Path,
    user: &UserDirs,
    config: Option<&xcsh_sources::config::JournalConfig>,
    entry: &JournalEntry,
) -> Result<(), CommandError> {
    let trusted = xcsh_sources::collect::dir_trusted(cwd, user)?;
    let place = crate::journal::Place::of(config, cwd, trusted, user.data.as_deref());
    if let Some(path) = place.path() {
        let key = crate::journal::key(user.data.as_deref());
        let anchors = user
            .data
            .as_deref()
            .map(|data| data.join(crate::journal::anchor::ANCHORS_DIR));
        FileJournal::new(path.to_owned(), PackOf::new(), key)
            .with_anchors(anchors)
            .record(entry);
    }
    Ok(())
}

/// Prints every apply with a snapshot, newest first: id, time, label,
/// files, and for one undone already when and by whom
/// (`  undone 2026-… by person`).
fn list(store: &Store, out: &mut impl Write) -> Result<(), CommandError> {
    let history = store.history()?;
    if history.is_empty() {
        writeln!(out, "{}", UndoError::NothingToUndo(store.cwd().to_owned()))?;
    }
    for (apply, undo) in history {
        let files = apply.changes.len();
        write!(
            out,
            "{:>4}  {}  \"{}\"  ({files} file{})",
            apply.id,
            apply.time,
            escape_controls(&apply.label, false),
            if files == 1 { "" } else { "s" }
        )?;
        match undo {
            Some(undo) => writeln!(
                out,
                "  undone {} by {}",
                undo.time,
                escape_controls(&undo.by, false)
            )?,
            None => writeln!(out)?,
        }
    }
    Ok(())
}

/// What the undo would put back.
fn describe(plan: &Plan, out: &mut impl Write) -> io::Result<()> {
    writeln!(
        out,
        "Apply {} \"{}\" ({}) changed:",
        plan.apply.id,
        escape_controls(&plan.apply.label, false),
        plan.apply.time
    )?;
    for change in &plan.apply.changes {
        writeln!(out, "  {}", escape_controls(&change.describe(), false))?;
    }
    Ok(())
}

/// `Undone apply 3: restored 2 files, removed 2 files.`
pub fn done(undo: &UndoRecord) -> String {
    let count = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
    format!(
        "Undone apply {}: restored {}, removed {}.",
        undo.undid,
        count(undo.restored.len()),
        count(undo.removed.len())
    )
}

/// The journal entry of an undo, done or refused.
pub fn entry(plan: &Plan, outcome: &Result<UndoRecord, UndoError>) -> JournalEntry {
    let apply = &plan.apply;
    let (result, error, details) = match outcome {
        Ok(undo) => (
            "undone",
            None,
            Some(json!({
                "restored": undo.restored,
                "removed": undo.removed,
                "forced": undo.forced,
            })),
        ),
        Err(error) => ("refused", Some(error.to_string()), None),
    };
    JournalEntry {
        event: JournalEvent::Undo,
        tool: apply.tool.clone(),
        label: apply.label.clone(),
        source_tool_name: apply.source_tool_name.clone(),
        policy: apply.policy,
        action: Some("undo".to_owned()),
        reason: None,
        decided_by: Some(
            outcome
                .as_ref()
                .map_or("person", |undo| undo.by.as_str())
                .to_owned(),
        ),
        outcome: result.to_owned(),
        error,
        preview: None,
        details,
        snapshot: Some(apply.id.to_string()),
    }
}
