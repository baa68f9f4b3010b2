//! Undo: the session's snapshots around every apply ([`install`]) and
//! `xcsh undo` ([`run`]), on the `xcsh-undo` store. See `docs/undo.md`.

use std::io::{self, BufRead as _, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use serde_json::json;
use xcsh_core::{Journal as _, JournalEntry, JournalEvent};
use xcsh_undo::{Plan, Store, UndoError, UndoObserver, UndoRecord};

use crate::agent::Agent;
use crate::cli::UndoArgs;
use crate::config::{CONFIG_FILE_NAME, Config};
use crate::journal::escape::escape_controls;
use crate::journal::writer::{FileJournal, PackOf};
use crate::sources::{Settings, UserDirs};

/// Where the undo stores of every working directory live: the user's state
/// directory's `xcsh/undo` (e.g. `~/.local/state/xcsh/undo`), else the
/// local data directory's.
pub fn state_root() -> Option<PathBuf> {
    dirs::state_dir()
        .or_else(dirs::data_local_dir)
        .map(|dir| dir.join("xcsh").join("undo"))
}

/// Gives `agent`'s session snapshots around every apply, unless the user's
/// or the trusted project's config turned them off.
pub fn install(agent: &Agent, settings: &Settings, cwd: &Path) {
    let config = settings.undo.clone().unwrap_or_default();
    if !config.enabled() || settings.project.undo_off {
        tracing::debug!("undo snapshots are turned off");
        return;
    }
    let Some(root) = state_root() else {
        tracing::warn!("no state directory: applies in this session cannot be undone");
        return;
    };
    agent
        .session
        .set_apply_observer(Arc::new(UndoObserver::new(&root, cwd, config)));
}

/// `xcsh undo`: lists the applies that can be undone, or undoes one after
/// showing what it changed and asking (unless `--yes`).
///
/// # Errors
///
/// The user's config is invalid, the store cannot be read, the undo is
/// refused (files changed since, a later apply, nothing to undo), or it
/// could not write a file.
pub fn run(args: &UndoArgs, cwd: &Path, user: &UserDirs) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    let ask = |out: &mut io::StdoutLock<'_>| confirm(out);
    undo(args, cwd, user, ask, &mut out)?;
    Ok(ExitCode::SUCCESS)
}

/// [`run`] with `ask` asking the person (unless `--yes`) and `out` for
/// what it prints; the REPL's `undo` asks through its line editor.
///
/// # Errors
///
/// As [`run`].
pub fn undo<W: io::Write>(
    args: &UndoArgs,
    cwd: &Path,
    user: &UserDirs,
    mut ask: impl FnMut(&mut W) -> anyhow::Result<bool>,
    out: &mut W,
) -> anyhow::Result<()> {
    let config = match &user.config {
        Some(dir) => Config::load(&dir.join(CONFIG_FILE_NAME))?,
        None => None,
    }
    .unwrap_or_default();
    let root = state_root().context("no state directory to keep undo snapshots in")?;
    let store = Store::open(
        &root,
        cwd,
        config.undo.as_deref().cloned().unwrap_or_default(),
    )?;
    if args.list {
        return list(&store, out);
    }
    let journal = crate::journal::path(config.journal.as_ref(), cwd)
        .map(|path| FileJournal::new(path, PackOf::new()));
    let plan = match store.plan(args.id) {
        Ok(plan) => plan,
        Err(error @ UndoError::NothingToUndo(_)) => {
            writeln!(out, "{error}")?;
            return Ok(());
        }
        Err(error) => return Err(error.into()),
    };
    describe(&plan, out)?;
    if !plan.stale.is_empty() && args.force {
        writeln!(
            out,
            "Changed since the apply, overwritten (--force): {}",
            plan.stale.join(", ")
        )?;
    }
    // A refused undo (files changed since) is not asked about: it is
    // refused, journaled and reported below.
    let refused = !plan.stale.is_empty() && !args.force;
    if !args.yes && !refused && !ask(out)? {
        writeln!(out, "Nothing was undone.")?;
        return Ok(());
    }
    let outcome = store.undo(&plan, args.force, "person");
    if let Some(journal) = &journal {
        journal.record(&entry(&plan, &outcome));
    }
    let undo = outcome?;
    writeln!(out, "{}", done(&undo))?;
    Ok(())
}

/// Prints the undoable applies, newest first: id, time, label, files.
fn list(store: &Store, out: &mut impl io::Write) -> anyhow::Result<()> {
    let applies = store.undoable()?;
    if applies.is_empty() {
        writeln!(out, "{}", UndoError::NothingToUndo(store.cwd().to_owned()))?;
    }
    for apply in applies {
        let files = apply.changes.len();
        let label = escape_controls(&apply.label, false);
        writeln!(
            out,
            "{:>4}  {}  \"{label}\"  ({files} file{})",
            apply.id,
            apply.time,
            if files == 1 { "" } else { "s" }
        )?;
    }
    Ok(())
}

/// What the undo would put back.
fn describe(plan: &Plan, out: &mut impl io::Write) -> io::Result<()> {
    let label = escape_controls(&plan.apply.label, false);
    writeln!(
        out,
        "Apply {} \"{label}\" ({}) changed:",
        plan.apply.id, plan.apply.time
    )?;
    for change in &plan.apply.changes {
        writeln!(out, "  {}", escape_controls(&change.describe(), false))?;
    }
    Ok(())
}

/// Asks the person at the terminal; standard input that is not a terminal
/// is an error (scripts pass `--yes`).
fn confirm(out: &mut io::StdoutLock<'_>) -> anyhow::Result<bool> {
    if !io::stdin().is_terminal() {
        anyhow::bail!(
            "xcsh undo asks before it writes: pass --yes to undo without asking (standard input is not a terminal)"
        );
    }
    write!(out, "Undo it? [y/N] ")?;
    out.flush()?;
    let mut answer = String::new();
    io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
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

/// The journal entry of an undo (done or refused).
pub fn entry(plan: &Plan, outcome: &Result<UndoRecord, UndoError>) -> JournalEntry {
    let apply = &plan.apply;
    let (result, error, details) = match outcome {
        Ok(undo) => (
            "undone",
            None,
            Some(
                json!({"restored": undo.restored, "removed": undo.removed, "forced": undo.forced}),
            ),
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
