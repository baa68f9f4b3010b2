//! Appends a session's journal entries to the journal file, one JSON line
//! each.

use std::collections::HashMap;
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value};
use xcsh_core::{Journal, JournalEntry};

/// Each tool's pack name and version (`None` for built-ins).
pub type PackOf = HashMap<String, Option<(String, String)>>;

/// A journal file for one session.
#[derive(Debug)]
pub struct FileJournal {
    path: PathBuf,
    session: String,
    packs: PackOf,
    /// One line at a time, so concurrent entries never interleave.
    writing: Mutex<()>,
    warned: AtomicBool,
}

impl FileJournal {
    /// A journal appending to `path` (its directory is created on the
    /// first entry), for a session named now.
    pub fn new(path: PathBuf, packs: PackOf) -> Self {
        let session = format!(
            "{}-{}",
            Utc::now().format("%Y%m%dT%H%M%S%.3fZ"),
            std::process::id()
        );
        Self {
            path,
            session,
            packs,
            writing: Mutex::new(()),
            warned: AtomicBool::new(false),
        }
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

    fn append(&self, line: &str) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        file.write_all(format!("{line}\n").as_bytes())
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Journal for FileJournal {
    fn record(&self, entry: &JournalEntry) {
        let line = self.line(entry);
        let _one_line_at_a_time = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(error) = self.append(&line) {
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
