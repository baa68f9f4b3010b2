//! Appends a session's journal entries to the journal file, one sealed
//! JSON line each (see [`chain`](super::chain)), under an exclusive lock
//! on the file, so sessions sharing a journal never break each other's
//! chain. Every entry is written to the file before [`Journal::record`]
//! returns, so before its result is; decisions (a resolve or a person's
//! answer) are flushed to disk in groups by a flusher thread within
//! [`SYNC_EVERY`], and at the session's end.
//!
//! The journal and its anchor stay open for the session: an entry costs
//! the lock, an `fstat`, a `stat` of the path (a journal moved or
//! replaced meanwhile is opened again, and checked again), the write and
//! the anchor's record, rewritten in place.

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

use super::anchor::Anchor;
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
    /// One line at a time, so concurrent entries never interleave: the
    /// open journal and anchor.
    writing: Mutex<Writing>,
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

/// The open journal and anchor of a session.
#[derive(Debug, Default)]
struct Writing {
    /// The journal file, open since the first entry (opened again when
    /// the path no longer leads to it).
    file: Option<File>,
    /// The file's length and last link after this session's last entry,
    /// so the tail is read again only when another writer appended.
    last: Option<(u64, Link)>,
    /// The journal's anchor, open since the first entry.
    anchor: Option<Anchor>,
}

impl Writing {
    /// The open journal, when `path` still leads to it.
    fn file_at(&self, path: &Path) -> Option<&File> {
        let file = self.file.as_ref()?;
        same_file(file, path).then_some(file)
    }
}

/// `file` is the file at `path` (not followed), or it cannot be told.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(open), Ok(there)) => open.dev() == there.dev() && open.ino() == there.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, _path: &Path) -> bool {
    false
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
            writing: Mutex::default(),
            warned: AtomicBool::new(false),
            notice: None,
            noticed: AtomicBool::new(false),
            anchors: None,
            anchor: std::sync::OnceLock::new(),
            flush: Arc::default(),
        }
    }

    /// Has `file` (and `anchor`) flushed to disk within [`SYNC_EVERY`],
    /// with every decision written until then, by a flusher thread.
    fn sync(&self, file: &File, anchor: Option<&Anchor>) -> std::io::Result<()> {
        let mut flush = self.flush.lock().unwrap_or_else(|p| p.into_inner());
        flush.pending = true;
        if flush.running {
            return Ok(());
        }
        let shared = Arc::clone(&self.flush);
        // Descriptors of its own, sharing the open files (a lock is only
        // ever held during an append, never by these).
        let journal = file.try_clone()?;
        let anchor_file = anchor.map(|a| a.file().try_clone()).transpose()?;
        let started = std::thread::Builder::new()
            .name("journal-flush".into())
            .spawn(move || {
                std::thread::sleep(SYNC_EVERY);
                let pending = {
                    let mut flush = shared.lock().unwrap_or_else(|p| p.into_inner());
                    flush.running = false;
                    std::mem::take(&mut flush.pending)
                };
                if pending && let Err(error) = flush_both(&journal, anchor_file.as_ref()) {
                    tracing::warn!("cannot flush the journal to disk: {error}");
                }
            });
        match started {
            Ok(_) => flush.running = true,
            // No thread: flush now.
            Err(_) => {
                flush.pending = false;
                flush_both(file, anchor.map(Anchor::file))?;
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
        let mut writing = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        if writing.file_at(&self.path).is_none() {
            writing.file = Some(open::for_append(&self.path)?);
        }
        if writing.anchor.is_none()
            && let Some(path) = self
                .anchor
                .get_or_init(|| {
                    let anchors = self.anchors.as_deref()?;
                    super::anchor::path_for(anchors, &self.path)
                })
                .as_deref()
        {
            writing.anchor = Some(Anchor::open(path)?);
        }
        let Writing { file, last, anchor } = &mut *writing;
        let file = file.as_ref().expect("opened above");
        file.lock()?;
        let written = self.append_locked(file, last, anchor.as_mut(), fields);
        let unlocked = file.unlock();
        written?;
        unlocked?;
        if durable {
            self.sync(file, anchor.as_ref())?;
        }
        Ok(())
    }

    /// [`append`](Self::append) once `file` is locked: `last` is where
    /// this session left it.
    fn append_locked(
        &self,
        file: &File,
        last: &mut Option<(u64, Link)>,
        anchor: Option<&mut Anchor>,
        fields: &str,
    ) -> std::io::Result<()> {
        // Checked again at every entry: a hard link made since is refused.
        let length = open::checked(file)?.len();
        let previous = match &*last {
            Some((known, link)) if *known == length => Some(link.clone()),
            _ => last_link(file, length)?,
        };
        let (line, link) = chain::seal(&self.key, previous.as_ref(), fields);
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        (&*file).write_all(&bytes)?;
        if let Some(anchor) = anchor {
            anchor.record(&link)?;
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
        let writing = self.writing.get_mut().unwrap_or_else(|p| p.into_inner());
        if pending && let Some(file) = &writing.file {
            let _ = flush_both(file, writing.anchor.as_ref().map(Anchor::file));
        }
    }
}

/// Flushes the journal, then its anchor, to disk.
fn flush_both(journal: &File, anchor: Option<&File>) -> std::io::Result<()> {
    journal.sync_data()?;
    anchor.map_or(Ok(()), File::sync_data)
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::journal::verify::{Verdict, verify};

    fn entry(event: JournalEvent) -> JournalEntry {
        JournalEntry {
            event,
            tool: "t".into(),
            label: "Write kept.txt".into(),
            source_tool_name: "t".into(),
            policy: xcsh_core::Policy::Model,
            action: None,
            reason: None,
            decided_by: None,
            outcome: "pushed".into(),
            error: None,
            preview: None,
            details: None,
            snapshot: None,
        }
    }

    fn journal(dir: &Path) -> FileJournal {
        FileJournal::new(dir.join("journal.jsonl"), PackOf::new(), Key::none())
            .with_anchors(Some(dir.join("anchors")))
    }

    fn anchored(journal: &FileJournal) -> Option<Link> {
        let anchor = super::super::anchor::path_for(&journal.anchors.clone()?, journal.path())?;
        super::super::anchor::read(&anchor).unwrap()
    }

    #[test]
    fn two_sessions_appending_in_turn_keep_one_chain_and_the_anchor_follows() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (journal(dir.path()), journal(dir.path()));
        for n in 0..3 {
            let line = one.line(&entry(JournalEvent::Push));
            one.append(&line, false).unwrap();
            let line = two.line(&entry(JournalEvent::Resolve));
            two.append(&line, n == 2).unwrap();
        }
        let anchor = anchored(&two).unwrap();
        assert_eq!(anchor.seq, 6);
        assert_eq!(
            verify(one.path(), &Key::none(), Some(&anchor)).unwrap(),
            Verdict::Intact(6)
        );
        let record = std::fs::read_to_string(
            super::super::anchor::path_for(&dir.path().join("anchors"), one.path()).unwrap(),
        )
        .unwrap();
        assert_eq!(record.len() as u64, super::super::anchor::RECORD_BYTES);
        assert!(record.starts_with("00000000000000000006 "), "{record}");
    }

    #[test]
    fn a_journal_moved_aside_mid_session_gets_the_next_entry_in_a_new_file_at_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let line = journal.line(&entry(JournalEvent::Push));
        journal.append(&line, false).unwrap();
        std::fs::rename(journal.path(), dir.path().join("journal.jsonl.1")).unwrap();
        let line = journal.line(&entry(JournalEvent::Resolve));
        journal.append(&line, true).unwrap();
        let text = std::fs::read_to_string(journal.path()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains(r#""event":"resolve""#), "{text}");
        assert_eq!(
            verify(journal.path(), &Key::none(), None).unwrap(),
            Verdict::Intact(1)
        );
        let rotated = std::fs::read_to_string(dir.path().join("journal.jsonl.1")).unwrap();
        assert_eq!(rotated.lines().count(), 1, "{rotated}");
    }

    #[test]
    fn a_hard_link_made_mid_session_stops_the_next_entry() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let line = journal.line(&entry(JournalEvent::Push));
        journal.append(&line, false).unwrap();
        std::fs::hard_link(journal.path(), dir.path().join("elsewhere")).unwrap();
        let before = std::fs::read(journal.path()).unwrap();
        let line = journal.line(&entry(JournalEvent::Resolve));
        assert_eq!(
            journal.append(&line, false).unwrap_err().to_string(),
            "refusing the journal: it has other names (a hard link to another file)"
        );
        assert_eq!(std::fs::read(journal.path()).unwrap(), before);
    }
}
