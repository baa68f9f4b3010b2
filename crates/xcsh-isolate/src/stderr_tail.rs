//! The stderr of a pack's process: passed through to the agent's own
//! stderr line by line, its last lines kept for crash reports.
//!
//! A pack chooses every byte of it, so it is read with a bound (a line
//! longer than [`MAX_LINE_BYTES`] is cut, the rest of it counted and
//! dropped, never buffered) and every line is escaped
//! ([`escape::line`](xcsh_text::escape::line)) before it reaches a terminal or
//! a log: no carriage return or terminal escape of a pack can rewrite what
//! the agent shows.

use std::collections::VecDeque;
use std::io::Read;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How many lines a crash report quotes.
pub const TAIL_LINES: usize = 8;

/// The longest line kept or relayed, in bytes; the rest of a longer line
/// is dropped as it is read.
pub const MAX_LINE_BYTES: usize = 4096;

/// The last lines a process wrote to stderr.
#[derive(Debug)]
pub struct StderrTail {
    lines: Arc<Mutex<VecDeque<String>>>,
    finished: Mutex<Option<mpsc::Receiver<()>>>,
}

impl StderrTail {
    /// Reads `stderr` on a thread of its own until it closes.
    pub fn start(stderr: impl Read + Send + 'static, pack: &str) -> Self {
        let lines = Arc::new(Mutex::new(VecDeque::with_capacity(TAIL_LINES)));
        let (done, finished) = mpsc::channel::<()>();
        let kept = Arc::clone(&lines);
        let spawned = std::thread::Builder::new()
            .name(format!("xcsh-stderr-{pack}"))
            .spawn(move || {
                let _done = done;
                let mut backtrace = Backtrace::default();
                read_lines(stderr, |text| {
                    eprintln!("{text}");
                    if backtrace.skips(&text) {
                        return;
                    }
                    let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                    if kept.len() == TAIL_LINES {
                        kept.pop_front();
                    }
                    kept.push_back(text);
                });
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot read a pack process's stderr");
        }
        Self {
            lines,
            finished: Mutex::new(Some(finished)),
        }
    }

    /// The kept lines, once the stream has closed (waiting at most `wait`
    /// for the last of them), blank lines left out.
    pub fn lines(&self, wait: Duration) -> Vec<String> {
        if let Some(finished) = self
            .finished
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = finished.recv_timeout(wait);
        }
        self.lines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|line| !line.trim().is_empty())
            .cloned()
            .collect()
    }
}

/// Recognises the lines of a Rust backtrace (`RUST_BACKTRACE=1` or
/// `full`, which the pack's process inherits): they are relayed to the
/// agent's stderr but not kept for the crash report, which quotes the
/// one-line cause (`memory allocation of … bytes failed`, `panicked at …`)
/// instead of frames.
#[derive(Debug, Default)]
struct Backtrace {
    inside: bool,
}

impl Backtrace {
    /// Whether `line` belongs to a backtrace: its `stack backtrace:`
    /// heading, a frame (`  12: name`, `   0:     0x55d… - name`), a
    /// frame's place (`             at src/lib.rs:3:5`) or the closing
    /// note about details omitted.
    fn skips(&mut self, line: &str) -> bool {
        if line.trim_end() == "stack backtrace:" {
            self.inside = true;
            return true;
        }
        if !self.inside {
            return false;
        }
        let trimmed = line.trim_start();
        let frame = trimmed.split_once(':').is_some_and(|(number, _)| {
            !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
        });
        let place = line.starts_with(' ') && trimmed.starts_with("at ");
        if frame || place {
            return true;
        }
        self.inside = false;
        line.starts_with("note: Some details are omitted")
    }
}

/// Reads `input` to its end in fixed chunks, handing each line to `line`,
/// escaped and without its line ending. A line is handed over at most
/// [`MAX_LINE_BYTES`] long, as soon as it reaches that length, with a note
/// that it was cut; the rest of it is dropped as it is read.
fn read_lines(mut input: impl Read, mut line: impl FnMut(String)) {
    let mut chunk = [0u8; 8192];
    let mut current = Vec::with_capacity(256);
    let mut dropping = false;
    let mut emit = |current: &mut Vec<u8>, cut: bool| {
        let text = String::from_utf8_lossy(current);
        let mut text = xcsh_text::escape::line(text.trim_end()).into_owned();
        if cut {
            text.push_str(&format!(" … (cut at {MAX_LINE_BYTES} bytes)"));
        }
        current.clear();
        line(text);
    };
    loop {
        let read = match input.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        for piece in chunk[..read].split_inclusive(|&b| b == b'\n') {
            let (body, ends) = match piece.split_last() {
                Some((b'\n', body)) => (body, true),
                _ => (piece, false),
            };
            if !dropping {
                let room = MAX_LINE_BYTES - current.len();
                current.extend_from_slice(&body[..body.len().min(room)]);
                if body.len() > room {
                    emit(&mut current, true);
                    dropping = true;
                } else if ends {
                    emit(&mut current, false);
                }
            }
            if ends {
                dropping = false;
            }
        }
    }
    if !current.is_empty() {
        emit(&mut current, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_lines_are_kept() {
        let text: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let tail = StderrTail::start(std::io::Cursor::new(text.into_bytes()), "t");
        let lines = tail.lines(Duration::from_secs(5));
        let expected: Vec<String> = (13..=20).map(|n| format!("line {n}")).collect();
        assert_eq!(lines, expected);
    }

    #[test]
    fn a_backtrace_is_not_kept_for_the_report_whatever_its_form() {
        let short = "memory allocation of 67108864 bytes failed\nstack backtrace:\n   0: std::alloc::rust_oom\n             at /rustc/abc/library/std/src/alloc.rs:385:5\n  12: fixture_crashy::allocate_forever\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n";
        let full = "thread 'main' panicked at src/lib.rs:5:9:\nboom\nstack backtrace:\n   0:     0x55d5c1b0a3c1 - std::backtrace_rs::backtrace::libunwind::trace::h1\n                               at /rustc/abc/library/std/src/../../backtrace/src/backtrace/libunwind.rs:116:5\n  41:                0x0 - <unknown>\nthread caused non-unwinding panic. aborting.\n";
        for (text, expected) in [
            (short, vec!["memory allocation of 67108864 bytes failed"]),
            (
                full,
                vec![
                    "thread 'main' panicked at src/lib.rs:5:9:",
                    "boom",
                    "thread caused non-unwinding panic. aborting.",
                ],
            ),
        ] {
            let tail = StderrTail::start(std::io::Cursor::new(text.as_bytes().to_vec()), "t");
            assert_eq!(tail.lines(Duration::from_secs(5)), expected);
        }
    }

    /// An endless line, as a pack can write one: never buffered past the
    /// bound, however long it runs.
    struct Endless(usize);

    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.0);
            buf[..n].fill(b'x');
            self.0 -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_line_without_end_is_cut_at_the_bound_as_it_is_read() {
        let mut lines = Vec::new();
        read_lines(Endless(64 * 1024 * 1024).chain(&b"\nnext"[..]), |line| {
            lines.push(line)
        });
        assert_eq!(
            lines,
            [
                format!(
                    "{} … (cut at {MAX_LINE_BYTES} bytes)",
                    "x".repeat(MAX_LINE_BYTES)
                ),
                "next".to_owned()
            ]
        );
    }

    #[test]
    fn terminal_escapes_and_carriage_returns_are_shown_not_obeyed() {
        let text = "ok\r\u{1b}[2KApprove all? [y/N]\u{7}\nnext\n";
        let tail = StderrTail::start(std::io::Cursor::new(text.as_bytes().to_vec()), "t");
        assert_eq!(
            tail.lines(Duration::from_secs(5)),
            ["ok\\r\\u{1b}[2KApprove all? [y/N]\\u{7}", "next"]
        );
    }
}
