//! `xcsh undo` at a terminal: the agent's undo command
//! (`xcsh_agent::undo::command`) asking the person on standard input.

use std::io::{self, BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;

use xcsh_agent::undo::command;
use xcsh_sources::UserDirs;

use crate::cli::UndoArgs;

/// The question before an undo writes.
pub const QUESTION: &str = "Undo it? [y/N] ";

/// Runs `xcsh undo` in `cwd`, asking on standard input unless `--yes`.
///
/// # Errors
///
/// As [`command::run`]; and standard input is not a terminal without
/// `--yes`.
pub fn run(args: &UndoArgs, cwd: &Path, user: &UserDirs) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    command::run(&args.request(), cwd, user, &mut confirm, &mut out)
        .map_err(|error| anyhow::anyhow!("{error}"))
}

/// Asks the person at the terminal; standard input that is not a terminal
/// is an error (scripts pass `--yes`).
fn confirm(out: &mut io::StdoutLock<'_>) -> io::Result<bool> {
    if !io::stdin().is_terminal() {
        return Err(io::Error::other(
            "xcsh undo asks before it writes: pass --yes to undo without asking (standard input is not a terminal)",
        ));
    }
    write!(out, "{QUESTION}")?;
    out.flush()?;
    let mut answer = String::new();
    io::stdin().lock().read_line(&mut answer)?;
    Ok(is_yes(&answer))
}

/// Whether an answer to [`QUESTION`] says yes.
pub fn is_yes(answer: &str) -> bool {
    matches!(answer.trim(), "y" | "Y" | "yes")
}
