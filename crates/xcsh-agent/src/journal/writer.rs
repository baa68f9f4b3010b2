//! Appends a session's journal entries to the journal file, one sealed
//! JSON line each (see [`chain`](super::chain)), under an exclusive lock
//! on the file, so sessions sharing a journal never break each other's
//! chain. Every entry is written to the file before [`Journal::record`]
//! returns, so before its result is; decisions (a resolve or a person's
//! answer) are flushed to disk in groups by a flusher thread within
//! [`SYNC_EVERY`], and at the session's end.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value};
use xcsh_core::{Journal, JournalEntry, JournalEvent};

use super::chain::{self, Key, Link};
use super::open;

/// Each tool's pack name and version (`None` for built-ins).
pub type PackOf = HashMap<String, Option<(String, String)>>;

/// A journal file for one session.
#[derive(Debug)]
pub struct FileJournal {
    path: PathBuf,
    session: String,
    packs: PackOf,
    key: Key,
    /// One line at a time, so concurrent entries never interleave; the
    /// file's length and last link after this session's last entry, so
    /// the tail is read again only when another writer appended.
    writing: Mutex<Option<(u64, Link)>>,
    warned: AtomicBool,
    /// Said once, as a warning, before the first entry is written: where
    /// the journal went when it is not where the config puts it.
    notice: Option<String>,
    noticed: AtomicBool,
    /// Where the anchors of journals are kept (see
    /// [`anchor`](super::anchor)); `None`: this journal has none.
    anchors: Option<PathBuf>,
    /// This journal's anchor file, once worked out.
    anchor: std::sync::OnceLock<Option<PathBuf>>,
    /// The decisions written but not yet flushed to disk, and whether a
    /// flush is on its way (group commit, see [`SYNC_EVERY`]).
    flush: Arc<Mutex<Flush>>,
}

/// What waits for the next flush.
#[derive(Debug, Default)]
struct Flush {
    /// A decision was written since the last flush.
    pending: bool,
    /// A flusher thread is waiting to flush it.
    running: bool,
}

/// Decisions are flushed to disk in groups: the first one written after
/// a flush starts a timer, and this long after it one `fdatasync` flushes
/// it and every decision written meanwhile (and the session's end flushes
/// what is left). Every entry is written to the file (the kernel's cache)
/// before [`Journal::record`] returns, so a crash of xcsh loses nothing; a
/// crash of the machine (power loss) may lose the decisions of the last
/// `SYNC_EVERY` plus the time the flush takes.
pub const SYNC_EVERY: Duration = Duration::from_millis(100);

impl FileJournal {
    /// A journal appending to `path` (its directory is created on the
    /// first entry), for a session named now, chained with `key`.
    pub fn new(path: PathBuf, packs: PackOf, key: Key) -> Self {
        let session = format!(
            "{}-{}",
            Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            std::process::id()
        );
        Self {
            path,
            session,
            packs,
            key,
            writing: Mutex::new(None),
            warned: AtomicBool::new(false),
            notice: None,
            noticed: AtomicBool::new(false),
            anchors: None,
            anchor: std::sync::OnceLock::new(),
            flush: Arc::default(),
        }
    }

    /// Has `file` flushed to disk within [`SYNC_EVERY`], with every
    /// decision written until then, by a flusher thread.
    fn sync(&self, file: &File) -> std::io::Result<()> {
        let mut flush = self.flush.lock().unwrap_or_else(|p| p.into_inner());
        flush.pending = true;
        if flush.running {
            return Ok(());
        }
        let shared = Arc::clone(&self.flush);
        // Flushed through a descriptor of its own: one kept from this
        // append would hold the file's lock for the next one.
        let path = self.path.clone();
        let started = std::thread::Builder::new()
            .name("journal-flush".into())
            .spawn(move || {
                std::thread::sleep(SYNC_EVERY);
                let pending = {
                    let mut flush = shared.lock().unwrap_or_else(|p| p.into_inner());
                    flush.running = false;
                    std::mem::take(&mut flush.pending)
                };
                if pending
                    && let Err(error) = open::for_reading(&path).and_then(|file| file.sync_data())
                {
                    tracing::warn!("cannot flush the journal to disk: {error}");
                }
            });
        match started {
            Ok(_) => flush.running = true,
            // No thread: flush now.
            Err(_) => {
                flush.pending = false;
                file.sync_data()?;
            }
        }
        Ok(())
    }

    /// This journal, anchored in `anchors` (the user's
    /// `journals/anchors/`): after every entry the anchor records where
    /// the chain ends, so a journal cut short does not verify.
    #[must_use]
    pub fn with_anchors(mut self, anchors: Option<PathBuf>) -> Self {
        self.anchors = anchors;
        self
    }

    /// This journal, saying `notice` once (a warning) before its first
    /// entry.
    #[must_use]
    pub fn with_notice(mut self, notice: Option<String>) -> Self {
        self.notice = notice;
        self
    }

    /// The session's name in its entries.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// `entry` as one journal line (without the line break): the time, the
    /// session, the pack and its version, then the entry's fields.
    pub fn line(&self, entry: &JournalEntry) -> String {
        let mut line = Map::new();
        line.insert(
            "time".into(),
            Utc::now()
                .to_rfc3339_opts(SecondsFormat::Millis, true)
                .into(),
        );
        line.insert("session".into(), self.session.clone().into());
        let (pack, version) = match self.packs.get(&entry.tool) {
            Some(Some((pack, version))) => {
                (Value::from(pack.clone()), Value::from(version.clone()))
            }
            Some(None) => (Value::from(crate::approve::BUILT_IN_PACK), Value::Null),
            None => (Value::Null, Value::Null),
        };
        line.insert("pack".into(), pack);
        line.insert("version".into(), version);
        if let Ok(Value::Object(fields)) = serde_json::to_value(entry) {
            line.extend(fields);
        }
        Value::Object(line).to_string()
    }

    /// Seals `fields` after the file's last entry and appends it, under
    /// the file's lock; flushes it to disk when `durable`.
    fn append(&self, fields: &str, durable: bool) -> std::io::Result<()> {
        let mut last = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        let file = open::for_append(&self.path)?;
        file.lock()?;
        let length = file.metadata()?.len();
        let previous = match &*last {
            Some((known, link)) if *known == length => Some(link.clone()),
            _ => last_link(&file, length)?,
        };
        let (line, link) = chain::seal(&self.key, previous.as_ref(), fields);
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        (&file).write_all(&bytes)?;
        if durable {
            self.sync(&file)?;
        }
        if let Some(anchor) = self
            .anchor
            .get_or_init(|| {
                let anchors = self.anchors.as_deref()?;
                super::anchor::path_for(anchors, &self.path)
            })
            .as_deref()
        {
            super::anchor::write(anchor, &link)?;
        }
        *last = Some((length + bytes.len() as u64, link));
        Ok(())
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileJournal {
    fn drop(&mut self) {
        let pending =
            std::mem::take(&mut self.flush.lock().unwrap_or_else(|p| p.into_inner()).pending);
        if pending && let Ok(file) = open::for_reading(&self.path) {
            let _ = file.sync_data();
        }
    }
}

impl Journal for FileJournal {
    fn record(&self, entry: &JournalEntry) {
        if let Some(notice) = &self.notice
            && !self.noticed.swap(true, Ordering::Relaxed)
        {
            tracing::warn!("{notice}");
        }
        let line = self.line(entry);
        let decision = !matches!(entry.event, JournalEvent::Push);
        if let Err(error) = self.append(&line, decision) {
            if self.warned.swap(true, Ordering::Relaxed) {
                tracing::debug!(path = %self.path.display(), %error, "journal entry not written");
            } else {
                tracing::warn!(
                    "cannot write the journal {}: {error}; the session goes on without it",
                    self.path.display()
                );
            }
        }
    }
}

/// The link of the last entry of the open journal `file`, `length` bytes
/// long: `None` when it is empty, or when its last line is not a sealed
/// entry (a new chain starts there, and `--verify` reports that line).
fn last_link(file: &File, length: u64) -> std::io::Result<Option<Link>> {
    if length == 0 {
        return Ok(None);
    }
    let window = length.min(open::MAX_ENTRY_BYTES as u64 + 1);
    let mut tail = vec![0; usize::try_from(window).unwrap_or(open::MAX_ENTRY_BYTES)];
    read_exact_at(file, &mut tail, length - window)?;
    let text = tail.strip_suffix(b"\n").unwrap_or(&tail);
    let start = match text.iter().rposition(|&b| b == b'\n') {
        Some(at) => at + 1,
        None if window == length => 0,
        None => return Ok(None),
    };
    Ok(std::str::from_utf8(&text[start..])
        .ok()
        .and_then(chain::unseal)
        .map(|(_, link)| link))
}

#[cfg(unix)]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read as _, Seek as _};
    let mut file = file;
    file.seek(std::io::SeekFrom::Start(offset))?;
    file.read_exact(buffer)
}
