//! `xcsh run`: a scripted session over JSON lines (see [`xcsh_script`]).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;

use xcsh_agent::Agent;

use crate::cli::RunArgs;
use crate::render;
use serde_json::Value;

use xcsh_script::{Driver, Request, parse_line};

/// The longest input line read into memory; a longer one is skipped
/// (streamed past, not buffered) with an error result.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

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
    // Not locked for the whole run: progress lines are written from the
    // thread running the call.
    let mut out = io::stdout();
    if args.pretty {
        for line in render::loaded_packs(&agent.report) {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    }
    let mut driver = Driver::new(&agent.session);
    if args.pretty {
        driver = driver.showing_progress(Arc::new(|tool, partial| {
            println!("{}", render::progress::line(tool, partial));
        }));
    }
    let mut buffer = Vec::new();
    let mut line = 0;
    loop {
        buffer.clear();
        let read = read_line(&mut input, &mut buffer).context("cannot read the script")?;
        let step = match read {
            LineRead::End => break,
            LineRead::Line => {
                line += 1;
                let parsed = parse(line, &buffer);
                if buffer.capacity() > KEPT_BUFFER_BYTES {
                    // A long line's text is not needed once parsed: free it
                    // before the call runs.
                    buffer = Vec::new();
                }
                match parsed {
                    Some(Ok(request)) => driver.call(line, request),
                    Some(Err((id, message))) => driver.reject(line, id, message),
                    None => continue,
                }
            }
            LineRead::TooLong => {
                line += 1;
                driver.reject(
                    line,
                    None,
                    format!(
                        "line {line} is longer than {} MiB; skipped",
                        MAX_LINE_BYTES / (1024 * 1024)
                    ),
                )
            }
        };
        if args.pretty {
            writeln!(out, "{}", render::step(&step))?;
        } else {
            writeln!(out, "{}", step.to_json_line())?;
        }
        out.flush()?;
    }
    // What the script left pending is discarded, never applied, as under
    // every front end (a warning names each).
    agent.session.end();
    Ok(())
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    /// A line is in the buffer.
    Line,
    /// A line over [`MAX_LINE_BYTES`] was skipped.
    TooLong,
    /// End of input.
    End,
}

/// Reads one line into `buffer`, holding at most [`MAX_LINE_BYTES`] of it:
/// the rest of a longer line is consumed without being stored.
fn read_line(input: &mut dyn BufRead, buffer: &mut Vec<u8>) -> io::Result<LineRead> {
    let limit = MAX_LINE_BYTES as u64 + 1;
    let read = io::Read::take(&mut *input, limit).read_until(b'\n', buffer)?;
    if read == 0 {
        return Ok(LineRead::End);
    }
    if buffer.len() <= MAX_LINE_BYTES || buffer.ends_with(b"\n") {
        return Ok(LineRead::Line);
    }
    buffer.clear();
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(LineRead::TooLong);
        }
        match chunk.iter().position(|&b| b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(LineRead::TooLong);
            }
            None => {
                let len = chunk.len();
                input.consume(len);
            }
        }
    }
}

/// A line's buffer above this size is freed after the line is parsed.
const KEPT_BUFFER_BYTES: usize = 1024 * 1024;

/// The request on input line `line`, or its id and error message; `None`
/// for blank and comment lines.
fn parse(line: usize, bytes: &[u8]) -> Option<Result<Request, (Option<Value>, String)>> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            return Some(Err((
                None,
                format!("invalid UTF-8 on line {line}: {error}"),
            )));
        }
    };
    Some(parse_line(text)?.map_err(|rejected| {
        let message = rejected.on_line(line);
        (rejected.id, message)
    }))
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    #[test]
    fn an_over_long_line_is_skipped_without_losing_the_next() {
        let mut text = vec![b'x'; MAX_LINE_BYTES + 10];
        text.extend_from_slice(b"\nnext\n");
        let mut input = Cursor::new(text);
        let mut buffer = Vec::new();
        assert_eq!(
            read_line(&mut input, &mut buffer).unwrap(),
            LineRead::TooLong
        );
        assert!(buffer.is_empty());
        assert_eq!(read_line(&mut input, &mut buffer).unwrap(), LineRead::Line);
        assert_eq!(buffer, b"next\n");
        buffer.clear();
        assert_eq!(read_line(&mut input, &mut buffer).unwrap(), LineRead::End);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_read() {
        let mut text = vec![b'y'; MAX_LINE_BYTES];
        text.push(b'\n');
        let mut input = Cursor::new(text);
        let mut buffer = Vec::new();
        assert_eq!(read_line(&mut input, &mut buffer).unwrap(), LineRead::Line);
        assert_eq!(buffer.len(), MAX_LINE_BYTES + 1);
    }
}
