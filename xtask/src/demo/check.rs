//! The demo's verdict: a session that printed errors or warnings (but the
//! one line saying where the journal of its untrusted, fresh directory
//! went), or left other files than docs/usage.md shows, is a failing demo.

use std::path::PathBuf;
use std::process::ExitStatus;

use anyhow::bail;

use super::EXPECTED_FILES;

/// The status glyph `xcsh run --pretty` puts before a successful call.
const OK: &str = "✓ ";

/// The status glyph before a call whose result is an error.
const FAILED: &str = "✗ ";

/// The middle of the line a session in an untrusted directory logs
/// before its first journal entry, up to the journal's path.
const JOURNAL_KEPT_IN: &str =
    " is not a trusted directory, so nothing is written in it: this session's journal is kept in ";

/// What follows the path in that line.
const JOURNAL_KEPT_AFTER: &str =
    " (xcsh journal there shows it; xcsh trust keeps it in the project)";

/// The journal file the session's `stderr` says it kept outside its
/// (untrusted) directory, if it says so.
pub fn redirected_journal(stderr: &str) -> Option<PathBuf> {
    stderr.lines().find_map(|line| {
        let (_, rest) = line
            .strip_prefix("warning: ")?
            .split_once(JOURNAL_KEPT_IN)?;
        rest.strip_suffix(JOURNAL_KEPT_AFTER).map(PathBuf::from)
    })
}

/// What one demo session did.
#[derive(Debug)]
pub struct Outcome<'a> {
    /// How `xcsh run` exited.
    pub status: ExitStatus,
    /// Its standard output (`--pretty`).
    pub stdout: &'a str,
    /// Its standard error (warnings and logs).
    pub stderr: &'a str,
    /// How many tool calls the script makes.
    pub calls: usize,
    /// The sorted file names in the demo directory afterwards.
    pub files: &'a [String],
}

/// The number of tool calls in a script: its lines that are neither blank
/// nor `#` comments.
pub fn count_calls(script: &str) -> usize {
    script
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .count()
}

/// Passes when the session exited successfully, logged nothing, ran every
/// call without an error result, and left exactly [`EXPECTED_FILES`].
///
/// # Errors
///
/// One line saying the first way the session differs from docs/usage.md.
pub fn check(outcome: &Outcome<'_>) -> anyhow::Result<()> {
    if !outcome.status.success() {
        bail!("demo failed: xcsh run exited with {}", outcome.status);
    }
    if let Some(line) = outcome
        .stderr
        .lines()
        .find(|line| !line.trim().is_empty() && redirected_journal(line).is_none())
    {
        bail!("demo failed: the session logged {line:?}");
    }
    if let Some(line) = outcome.stdout.lines().find(|line| line.starts_with(FAILED)) {
        bail!("demo failed: a call ended in an error: {line:?}");
    }
    let ok = outcome
        .stdout
        .lines()
        .filter(|line| line.starts_with(OK))
        .count();
    if ok != outcome.calls {
        bail!(
            "demo failed: {ok} of the script's {} calls succeeded",
            outcome.calls
        );
    }
    if outcome.files != EXPECTED_FILES {
        bail!(
            "demo failed: the files are {:?}, expected {:?}",
            outcome.files.join(" "),
            EXPECTED_FILES.join(" ")
        );
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests;
