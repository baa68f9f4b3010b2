//! The stderr of a pack's process: passed through to the agent's own
//! stderr line by line, its last lines kept for crash reports.

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader, Read};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How many lines a crash report quotes.
pub const TAIL_LINES: usize = 8;

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
                let mut reader = BufReader::new(stderr);
                let mut line = Vec::new();
                while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
                    let text = String::from_utf8_lossy(&line).trim_end().to_owned();
                    line.clear();
                    eprintln!("{text}");
                    let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                    if kept.len() == TAIL_LINES {
                        kept.pop_front();
                    }
                    kept.push_back(text);
                }
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
}
