//! Appends a session's journal entries to the journal file, one sealed
//! JSON line each (see [`chain`](super::chain)), under an exclusive lock
//! on the file, so sessions sharing a journal never break each other's
//! chain. Every entry is written to the file before [`Journal::record`]
//! returns, so before its result is; the file is held open and locked in
//! turns, and decisions (a resolve or a person's answer) are flushed to
//! disk in groups, within [`SYNC_EVERY`] and at the session's end (see
//! [`held`](super::held)).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{SecondsFormat, Utc};
use xcsh_core::{Journal, JournalEntry, JournalEvent};

use super::chain::Key;
use super::held::Held;
pub use super::held::SYNC_EVERY;

/// One journal line's fields, written straight to its text (no
/// intermediate JSON value: an entry is on the hot path of every push and
/// resolve).
#[derive(serde::Serialize)]
struct Line<'a> {
    time: String,
    session: &'a str,
    pack: Option<&'a str>,
    version: Option<&'a str>,
    #[serde(flatten)]
    entry: &'a JournalEntry,
}

/// Each tool's pack name and version (`None` for built-ins).
pub type PackOf = HashMap<String, Option<(String, String)>>;

/// A journal file for one session.
#[derive(Debug)]
pub struct FileJournal {
    path: PathBuf,
    session: String,
    packs: PackOf,
    key: Key,
    /// The open journal and anchor, one entry at a time (so concurrent
    /// entries never interleave).
    held: Held,
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
}

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
            held: Held::default(),
            warned: AtomicBool::new(false),
            notice: None,
            noticed: AtomicBool::new(false),
            anchors: None,
            anchor: std::sync::OnceLock::new(),
        }
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
        let (pack, version) = match self.packs.get(&entry.tool) {
            Some(Some((pack, version))) => (Some(pack.as_str()), Some(version.as_str())),
            Some(None) => (Some(crate::approve::BUILT_IN_PACK), None),
            None => (None, None),
        };
        let line = Line {
            time: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
            session: &self.session,
            pack,
            version,
            entry,
        };
        serde_json::to_string(&line).unwrap_or_else(|error| {
            // Only a map with keys that are not strings fails, and an
            // entry has none: said in the journal rather than lost.
            serde_json::json!({"time": line.time, "session": self.session, "error": error.to_string()})
                .to_string()
        })
    }

    /// Seals `fields` after the file's last entry and appends it, under
    /// the file's lock; flushes it to disk when `durable`.
    fn append(&self, fields: &str, durable: bool) -> std::io::Result<()> {
        // Worked out once the journal is open: its directory exists then.
        let anchor = || {
            self.anchor
                .get_or_init(|| {
                    let anchors = self.anchors.as_deref()?;
                    super::anchor::path_for(anchors, &self.path)
                })
                .clone()
        };
        self.held
            .append(&self.path, anchor, &self.key, fields, durable)
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileJournal {
    fn drop(&mut self) {
        self.held.end_turn();
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

    fn flush(&self) {
        self.held.end_turn();
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::journal::chain::Link;
    use crate::journal::open;
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

    /// A journal in a directory made by its first entry.
    fn journal(dir: &Path) -> FileJournal {
        FileJournal::new(
            dir.join("journals/journal.jsonl"),
            PackOf::new(),
            Key::none(),
        )
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
        // Each waited for the other's turn to end; the last one ends now.
        two.held.end_turn();
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
    fn a_journal_removed_or_replaced_mid_session_gets_the_next_entry_at_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let line = journal.line(&entry(JournalEvent::Push));
        journal.append(&line, false).unwrap();
        journal.held.end_turn();
        std::fs::remove_file(journal.path()).unwrap();
        let line = journal.line(&entry(JournalEvent::Resolve));
        journal.append(&line, true).unwrap();
        let text = std::fs::read_to_string(journal.path()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains(r#""event":"resolve""#), "{text}");
        assert_eq!(
            verify(journal.path(), &Key::none(), None).unwrap(),
            Verdict::Intact(1)
        );
        // Another file renamed over it: the entry goes to that file.
        let other = dir.path().join("other.jsonl");
        std::fs::write(&other, "").unwrap();
        journal.held.end_turn();
        std::fs::rename(&other, journal.path()).unwrap();
        let line = journal.line(&entry(JournalEvent::Push));
        journal.append(&line, false).unwrap();
        let text = std::fs::read_to_string(journal.path()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.contains(r#""event":"push""#), "{text}");
    }

    #[test]
    fn a_turn_ends_by_itself_the_anchor_catches_up_and_another_session_gets_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let line = journal.line(&entry(JournalEvent::Resolve));
        journal.append(&line, true).unwrap();
        let file = open::for_reading(journal.path()).unwrap();
        assert!(file.try_lock().is_err(), "held while the turn lasts");
        std::thread::sleep(SYNC_EVERY * 3);
        assert_eq!(anchored(&journal).unwrap().seq, 1);
        file.try_lock().expect("let go when the turn ended");
    }

    #[test]
    fn the_next_session_chains_onto_a_last_entry_longer_than_the_first_read_of_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        for (n, size) in [(1, 10), (2, 100_000), (3, 10), (4, 0)] {
            let journal = journal(dir.path());
            let mut long = entry(JournalEvent::Push);
            long.preview = Some("x".repeat(size));
            let line = journal.line(&long);
            journal.append(&line, false).unwrap();
            drop(journal);
            assert_eq!(
                verify(
                    &dir.path().join("journals/journal.jsonl"),
                    &Key::none(),
                    None
                )
                .unwrap(),
                Verdict::Intact(n)
            );
        }
    }

    #[test]
    fn a_hard_link_made_mid_session_stops_the_next_entry() {
        let dir = tempfile::tempdir().unwrap();
        let journal = journal(dir.path());
        let line = journal.line(&entry(JournalEvent::Push));
        journal.append(&line, false).unwrap();
        journal.held.end_turn();
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
