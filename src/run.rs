//! `xcsh run`: a scripted session over JSON lines (see [`crate::script`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use anyhow::Context as _;

use crate::agent::Agent;
use crate::cli::RunArgs;
use crate::render;
use crate::script::{Driver, Step, parse_line};

/// Runs the script of `args` in `agent`'s session, writing one JSON line
/// (or, with `--pretty`, a rendered block) per call to standard output.
/// Lines are handled as they arrive, so a driver can converse through pipes.
///
/// # Errors
///
/// The script cannot be opened or read, or standard output cannot be
/// written. Bad lines are not errors: they give error results.
pub fn run(agent: &Agent, args: &RunArgs) -> anyhow::Result<()> {
    let mut input: Box<dyn BufRead> = match &args.file {
        Some(path) if path != Path::new("-") => {
            Box::new(BufReader::new(File::open(path).with_context(|| {
                format!("cannot open script {}", path.display())
            })?))
        }
        _ => Box::new(io::stdin().lock()),
    };
    let mut out = io::stdout().lock();
    if args.pretty {
        for line in render::loaded_packs(&agent.report) {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    }
    let driver = Driver::new(&agent.session);
    let mut buffer = Vec::new();
    let mut line = 0;
    loop {
        buffer.clear();
        if input
            .read_until(b'\n', &mut buffer)
            .context("cannot read the script")?
            == 0
        {
            break;
        }
        line += 1;
        let Some(step) = step(&driver, line, &buffer) else {
            continue;
        };
        if args.pretty {
            writeln!(out, "{}", render::step(&step))?;
        } else {
            writeln!(out, "{}", step.to_json_line())?;
        }
        out.flush()?;
    }
    let pending = agent.session.store().views();
    if !pending.is_empty() {
        tracing::info!(
            "{} left pending at the end of the script; nothing was applied for {}",
            render::count(pending.len(), "action"),
            if pending.len() == 1 { "it" } else { "them" }
        );
    }
    Ok(())
}

/// The step for input line `line`, `None` for blank and comment lines.
fn step(driver: &Driver<'_>, line: usize, bytes: &[u8]) -> Option<Step> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            return Some(driver.reject(
                line,
                None,
                format!("invalid UTF-8 on line {line}: {error}"),
            ));
        }
    };
    Some(match parse_line(text)? {
        Ok(request) => driver.call(line, request),
        Err(rejected) => {
            let message = rejected.on_line(line);
            driver.reject(line, rejected.id, message)
        }
    })
}
