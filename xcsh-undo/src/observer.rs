//! The session's apply observer: a snapshot before and after each apply,
//! and a reminder for the model once a person undid one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use git2::Oid;
use xcsh_core::{ApplyInfo, ApplyObserver, ApplyWatch};

use crate::log::LogLine;
use crate::watch::{Dirty, Watcher};
use crate::{Limits, Store, UndoError};

/// Snapshots the working directory around every apply of a session (the
/// store opens at the first apply), and turns undos logged since the
/// session started (from any process) into reminders for the model.
///
/// The first snapshot compares every file's stamp with the store's index;
/// later ones read only the paths the kernel said changed since (Linux
/// inotify), or compare every stamp again where there is no watcher.
#[derive(Debug)]
pub struct UndoObserver {
    root: PathBuf,
    cwd: PathBuf,
    config: Limits,
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    store: Option<Store>,
    /// The store could not be opened: said once.
    broken: bool,
    /// What changed since the last snapshot, once armed.
    watcher: Option<Watcher>,
    /// The last log number seen; undos after it are reminded of.
    seen: u64,
    /// How far the log was read.
    offset: u64,
    /// The log's length and modification time when last read.
    stamp: Option<(u64, std::time::SystemTime)>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl UndoObserver {
    /// An observer for a session in `cwd`, with stores under `root`. Undos
    /// already logged are not reminded of. Applies past the retention
    /// limits are dropped now (a store is cleaned when a session starts
    /// and by every `xcsh undo`).
    pub fn new(root: &Path, cwd: &Path, config: Limits) -> Self {
        let observer = Self {
            root: root.to_owned(),
            cwd: cwd.to_owned(),
            config,
            state: Arc::default(),
        };
        let log = Store::dir_for(root, cwd).join("log.jsonl");
        if log.exists() {
            match Store::open(root, cwd, config).and_then(|store| store.clean()) {
                Ok(()) => {}
                Err(error) => tracing::warn!("undo store cleanup failed: {error}"),
            }
        }
        let mut state = lock(&observer.state);
        state.stamp = stamp(&log);
        let (lines, offset) = crate::log::read_from(&log, 0).unwrap_or_default();
        state.offset = offset;
        state.seen = lines.iter().map(LogLine::seq).max().unwrap_or(0);
        drop(state);
        observer
    }

    fn snapshot(&self) -> Option<Oid> {
        let mut state = lock(&self.state);
        open(&mut state, &self.root, &self.cwd, self.config)?;
        let taken = snapshot(&mut state);
        match taken {
            Ok(tree) => Some(tree),
            Err(error) => {
                tracing::warn!("no undo snapshot before this apply: {error}");
                None
            }
        }
    }
}

/// A snapshot of the open store: of what the watcher saw change, or of
/// every file's stamp (the first one, and wherever there is no watcher).
fn snapshot(state: &mut State) -> Result<Oid, UndoError> {
    let State { store, watcher, .. } = state;
    let store = store.as_ref().expect("the store is open");
    let _locked = store.lock()?;
    let skip = |rel: &Path| store.ignored(rel);
    let dirty = match watcher {
        Some(watcher) => watcher.drain(&skip),
        None => {
            // Armed before the walk: what changes during it is seen next time.
            *watcher = Watcher::arm(store.cwd(), &skip);
            Dirty::All
        }
    };
    match dirty {
        Dirty::All => store.snapshot(),
        Dirty::Paths(paths) => store.snapshot_paths(&paths),
    }
}

fn open<'a>(
    state: &'a mut State,
    root: &Path,
    cwd: &Path,
    config: Limits,
) -> Option<&'a Store> {
    if state.store.is_none() && !state.broken {
        match Store::open(root, cwd, config) {
            Ok(store) => state.store = Some(store),
            Err(error) => {
                state.broken = true;
                tracing::warn!("applies in this session cannot be undone: {error}");
            }
        }
    }
    state.store.as_ref()
}

fn stamp(log: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = std::fs::metadata(log).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

impl ApplyObserver for UndoObserver {
    fn before_apply(&self, apply: &ApplyInfo<'_>) -> Option<Box<dyn ApplyWatch>> {
        let before = self.snapshot()?;
        Some(Box::new(Watch {
            state: Arc::clone(&self.state),
            before,
            label: apply.label.to_owned(),
            tool: apply.tool.to_owned(),
            source_tool_name: apply.source_tool_name.to_owned(),
            policy: apply.policy,
        }))
    }

    fn reminders(&self) -> Vec<String> {
        let log = Store::dir_for(&self.root, &self.cwd).join("log.jsonl");
        let mut state = lock(&self.state);
        let now = stamp(&log);
        if now == state.stamp {
            return Vec::new();
        }
        state.stamp = now;
        let Ok((lines, offset)) = crate::log::read_from(&log, state.offset) else {
            return Vec::new();
        };
        state.offset = offset;
        let mut reminders = Vec::new();
        for line in &lines {
            if let LogLine::Undo(undo) = line
                && undo.seq > state.seen
            {
                reminders.push(crate::reminder(undo));
            }
        }
        state.seen = lines.iter().map(LogLine::seq).fold(state.seen, u64::max);
        reminders
    }
}

/// One apply between its two snapshots.
struct Watch {
    state: Arc<Mutex<State>>,
    before: Oid,
    label: String,
    tool: String,
    source_tool_name: String,
    policy: xcsh_core::Policy,
}

impl ApplyWatch for Watch {
    fn after_apply(self: Box<Self>, applied: bool) -> Option<String> {
        let mut state = lock(&self.state);
        state.store.as_ref()?;
        let info = ApplyInfo {
            label: &self.label,
            tool: &self.tool,
            source_tool_name: &self.source_tool_name,
            policy: self.policy,
        };
        let recorded: Result<Option<u64>, UndoError> = snapshot(&mut state).and_then(|after| {
            let store = state.store.as_ref().expect("the store is open");
            let _locked = store.lock()?;
            let id = store.record_apply(&info, self.before, after, applied)?;
            store.write_index()?;
            Ok(id)
        });
        match recorded {
            Ok(id) => id.map(|id| id.to_string()),
            Err(error) => {
                tracing::warn!("no undo snapshot of \"{}\": {error}", self.label);
                None
            }
        }
    }
}
