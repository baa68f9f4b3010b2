//! The store's log: one JSON line per apply snapshot and per undo,
//! numbered in one sequence (an apply's number is its id).

use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::{Change, UndoError};

/// An apply with its two snapshots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyRecord {
    /// The apply's id (`xcsh undo ID`).
    pub id: u64,
    /// When it ran (RFC 3339, UTC).
    pub time: String,
    /// The action's label.
    pub label: String,
    /// The tool whose call pushed the action.
    pub tool: String,
    /// The action's source tool name.
    pub source_tool_name: String,
    /// The approval policy the apply was under.
    pub policy: xcsh_core::Policy,
    /// Whether the apply succeeded (a failed one may have changed files too).
    pub applied: bool,
    /// The tree before the apply.
    pub before: String,
    /// The tree after it.
    pub after: String,
    /// What changed.
    pub changes: Vec<Change>,
}

/// An undo of an apply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoRecord {
    /// The undo's own number in the log's sequence.
    pub seq: u64,
    /// The apply undone.
    pub undid: u64,
    /// When (RFC 3339, UTC).
    pub time: String,
    /// The apply's label.
    pub label: String,
    /// Who undid it: `person`, or `model` (the opt-in `undo` tool).
    pub by: String,
    /// Files written back as they were before the apply (each as
    /// `xcsh_safe_fs::name::as_text` writes it, as [`Change::path`]).
    pub restored: Vec<String>,
    /// Files the apply created, removed again (the same form).
    pub removed: Vec<String>,
    /// `--force` overwrote files changed since the apply.
    pub forced: bool,
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum LogLine {
    /// An apply's snapshot.
    Apply(ApplyRecord),
    /// An undo.
    Undo(UndoRecord),
}

impl LogLine {
    /// Its number in the log's sequence.
    pub fn seq(&self) -> u64 {
        match self {
            Self::Apply(record) => record.id,
            Self::Undo(record) => record.seq,
        }
    }
}

/// Every line of the log at `path` (none when there is no log yet).
pub(crate) fn read(path: &Path) -> Result<Vec<LogLine>, UndoError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(UndoError::io("read", path)(error)),
    };
    parse(path, &text)
}

/// The number of the log's last line (0 when there is none), read from
/// the end of the file: the log's numbers only grow.
pub(crate) fn last_seq(path: &Path) -> Result<u64, UndoError> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(error) => return Err(UndoError::io("read", path)(error)),
    };
    let len = file.metadata().map_err(UndoError::io("read", path))?.len();
    let mut chunk = 4096_u64;
    loop {
        let start = len.saturating_sub(chunk);
        file.seek(SeekFrom::Start(start))
            .map_err(UndoError::io("read", path))?;
        let mut tail = Vec::new();
        file.read_to_end(&mut tail)
            .map_err(UndoError::io("read", path))?;
        let text = String::from_utf8_lossy(&tail);
        let trimmed = text.trim_end();
        // The last line, once its start is inside the chunk read.
        let line = match trimmed.rfind('\n') {
            Some(at) => &trimmed[at + 1..],
            None if start == 0 => trimmed,
            None => {
                chunk *= 4;
                continue;
            }
        };
        if line.is_empty() {
            return Ok(0);
        }
        return serde_json::from_str::<LogLine>(line)
            .map(|line| line.seq())
            .map_err(|error| UndoError::BadLog {
                path: path.to_owned(),
                line: 0,
                message: format!("last line: {error}"),
            });
    }
}

/// The lines appended to the log at `path` from byte `offset` on, and the
/// offset after them; from the start when the log is shorter than `offset`
/// (cleanup rewrote it).
pub(crate) fn read_from(path: &Path, offset: u64) -> Result<(Vec<LogLine>, u64), UndoError> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok((Vec::new(), 0));
        }
        Err(error) => return Err(UndoError::io("read", path)(error)),
    };
    let len = file.metadata().map_err(UndoError::io("read", path))?.len();
    let start = if offset > len { 0 } else { offset };
    file.seek(SeekFrom::Start(start))
        .map_err(UndoError::io("read", path))?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(UndoError::io("read", path))?;
    // A line still being written is read next time.
    let complete = text.rfind('\n').map_or(0, |at| at + 1);
    let lines = parse(path, &text[..complete])?;
    Ok((lines, start + complete as u64))
}

/// The log lines of `text`.
fn parse(path: &Path, text: &str) -> Result<Vec<LogLine>, UndoError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|error| UndoError::BadLog {
                path: path.to_owned(),
                line: n + 1,
                message: error.to_string(),
            })
        })
        .collect()
}

/// How many times this process wrote a log (append or rewrite), so a
/// reader in the same process knows to look again at once.
static WRITES: AtomicU64 = AtomicU64::new(0);

/// How many log writes this process made so far.
pub(crate) fn writes() -> u64 {
    WRITES.load(Ordering::Acquire)
}

/// Appends `line` to the log at `path`.
pub(crate) fn append(path: &Path, line: &LogLine) -> Result<(), UndoError> {
    let _counted = CountWrite;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(UndoError::io("write", path))?;
    let text = serde_json::to_string(line).expect("a log line serializes");
    file.write_all(format!("{text}\n").as_bytes())
        .map_err(UndoError::io("write", path))
}

/// Counts a log write when dropped: after it, whether it succeeded or not.
struct CountWrite;

impl Drop for CountWrite {
    fn drop(&mut self) {
        WRITES.fetch_add(1, Ordering::AcqRel);
    }
}

/// Replaces the log at `path` with `lines`.
pub(crate) fn rewrite(path: &Path, lines: &[LogLine]) -> Result<(), UndoError> {
    let _counted = CountWrite;
    let temporary = path.with_extension("jsonl.new");
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(line).expect("a log line serializes"));
        text.push('\n');
    }
    std::fs::write(&temporary, text).map_err(UndoError::io("write", &temporary))?;
    std::fs::rename(&temporary, path).map_err(UndoError::io("replace", path))
}

/// The time now, as the log writes it.
pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
