//! `xcsh journal`: the recent entries, for people or (`--json`) programs.

use std::io::{self, BufReader, Write as _};
use std::path::Path;

use anyhow::Context as _;
use serde_json::Value;

use xcsh_agent::journal;
use xcsh_sources::UserDirs;
use xcsh_sources::config::{CONFIG_FILE_NAME, Config};
use xcsh_text::escape_controls;

use crate::cli::JournalArgs;

/// Prints the last entries of the journal of a session in `cwd`: the one
/// the user's config names, or, in a directory the user does not trust,
/// the one kept for it in the user's data directory.
///
/// # Errors
///
/// The user's config is invalid, the journal cannot be read, or standard
/// output cannot be written.
pub fn show(args: &JournalArgs, cwd: &Path, user: &UserDirs) -> anyhow::Result<()> {
    let config = match &user.config {
        Some(dir) => Config::load(&dir.join(CONFIG_FILE_NAME))?,
        None => None,
    };
    let mut out = io::stdout().lock();
    let trusted = xcsh_sources::collect::dir_trusted(cwd, user)?;
    let place = journal::Place::of(
        config.and_then(|c| c.journal).as_ref(),
        cwd,
        trusted,
        user.data.as_deref(),
    );
    let path = match place {
        journal::Place::Off => {
            writeln!(
                out,
                "The journal is turned off ([journal] enabled = false in the user's config)."
            )?;
            return Ok(());
        }
        journal::Place::Nowhere { cwd } => {
            if args.json {
                return Ok(());
            }
            writeln!(
                out,
                "No journal: {} is not a trusted directory and there is no user data directory to keep its journal in.",
                xcsh_text::escape::path(&cwd)
            )?;
            return Ok(());
        }
        journal::Place::Named(path)
        | journal::Place::Redirected { path, .. }
        | journal::Place::Moved { path, .. } => path,
    };
    if args.verify {
        return verify(&path, user, &mut out);
    }
    let file = match journal::open::for_reading(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if !args.json {
                writeln!(
                    out,
                    "No journal yet: {} does not exist.",
                    xcsh_text::escape::path(&path)
                )?;
            }
            return Ok(());
        }
        Err(error) => {
            return Err(error).with_context(|| {
                format!("cannot read the journal {}", xcsh_text::escape::path(&path))
            });
        }
    };
    let mut last = std::collections::VecDeque::with_capacity(args.last.min(4096));
    let mut reader = BufReader::new(file);
    loop {
        let line = match journal::open::read_line(&mut reader) {
            Ok(Some(line)) => String::from_utf8_lossy(&line).into_owned(),
            Ok(None) => break,
            Err(error) if error.kind() == io::ErrorKind::InvalidData => error.to_string(),
            Err(error) => {
                return Err(error).with_context(|| {
                    format!("cannot read the journal {}", xcsh_text::escape::path(&path))
                });
            }
        };
        if line.trim().is_empty() || args.last == 0 {
            continue;
        }
        if last.len() == args.last {
            last.pop_front();
        }
        last.push_back(line);
    }
    for line in last {
        if args.json {
            writeln!(out, "{line}")?;
        } else {
            writeln!(out, "{}", human(&line))?;
        }
    }
    Ok(())
}

/// `xcsh journal --verify`: one line saying the chain holds, or an error
/// naming the first entry that breaks it.
fn verify(path: &Path, user: &UserDirs, out: &mut impl io::Write) -> anyhow::Result<()> {
    let key = journal::key(user.data.as_deref());
    let anchor =
        match user.data.as_deref().and_then(|data| {
            journal::anchor::path_for(&data.join(journal::anchor::ANCHORS_DIR), path)
        }) {
            Some(at) => journal::anchor::read(&at).with_context(|| {
                format!(
                    "cannot read the journal's anchor {}",
                    xcsh_text::escape::path(&at)
                )
            })?,
            None => None,
        };
    let verdict = journal::verify::verify(path, &key, anchor.as_ref()).with_context(|| {
        format!(
            "cannot verify the journal {}",
            xcsh_text::escape::path(path)
        )
    })?;
    match verdict {
        journal::verify::Verdict::Intact(count) => {
            writeln!(
                out,
                "Journal {} verifies: {count} entr{} chained, none edited, removed or moved.",
                xcsh_text::escape::path(path),
                if count == 1 { "y" } else { "ies" }
            )?;
            Ok(())
        }
        journal::verify::Verdict::Broken { line, why } => Err(anyhow::anyhow!(
            "journal {}: entry {line} breaks the chain: {why}",
            xcsh_text::escape::path(path)
        )),
    }
}

/// One journal line for people, e.g.
/// `2025-06-01T10:00:00.000Z  resolve  "Batch Rename: 1 file"  batch_rename_preview (batch-rename 0.1.0, ask): declined by person; reason: keep it`.
/// Everything a pack supplied has its control characters escaped.
pub fn human(line: &str) -> String {
    let entry: Value = match serde_json::from_str(line) {
        Ok(entry @ Value::Object(_)) => entry,
        _ => return format!("(not a journal entry: {})", escape_controls(line, false)),
    };
    let field = |name: &str| entry[name].as_str().map(|s| escape_controls(s, false));
    let or_dash = |name: &str| field(name).unwrap_or_else(|| "-".to_owned());
    let pack = match (field("pack"), field("version")) {
        (Some(pack), Some(version)) => format!("{pack} {version}, "),
        (Some(pack), None) => format!("{pack}, "),
        _ => String::new(),
    };
    let mut text = format!(
        "{}  {:<7}  \"{}\"  {} ({pack}{}): {}",
        or_dash("time"),
        or_dash("event"),
        or_dash("label"),
        or_dash("tool"),
        or_dash("policy"),
        or_dash("outcome"),
    );
    if let Some(action) = field("action") {
        text.push_str(&format!("; {action}"));
    }
    if let Some(by) = field("decidedBy") {
        text.push_str(&format!(" by {by}"));
    }
    if let Some(reason) = field("reason") {
        text.push_str(&format!("; reason: {reason}"));
    }
    if let Some(error) = field("error") {
        text.push_str(&format!("; error: {error}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_one_line_with_pack_text_escaped() {
        let line = r#"{"time":"2025-06-01T10:00:00.000Z","session":"s","pack":"batch-rename","version":"0.1.0","event":"resolve","tool":"batch_rename_preview","label":"Evil\u001b[2J\nlabel","sourceToolName":"x","policy":"ask","action":"discard","reason":"keep it","decidedBy":"person","outcome":"declined"}"#;
        assert_eq!(
            human(line),
            "2025-06-01T10:00:00.000Z  resolve  \"Evil\\u{1b}[2J\\nlabel\"  batch_rename_preview (batch-rename 0.1.0, ask): declined; discard by person; reason: keep it"
        );
        assert_eq!(
            human("nonsense\u{7}"),
            "(not a journal entry: nonsense\\u{7})"
        );
    }
}
