//! The session's apply observer: a snapshot before and after each apply,
//! and a reminder for the model once a person undid one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use git2::Oid;
use xcsh_core::{ApplyInfo, ApplyObserver, ApplyWatch};

use crate::dirty::Dirty;
use crate::log::LogLine;
use crate::meta::{MetaTable, Replaced};
use crate::watch::Watcher;
use crate::{Limits, Store, UndoError};

/// Snapshots the working directory around every apply of a session (the
/// store opens at the first apply), and turns undos logged since the
/// session started (from any process) into reminders for the model.
///
/// The first snapshot compares every file's stamp with the store's index;
/// later ones read only the paths the kernel said changed since (Linux
/// inotify), or compare every stamp again where there is no watcher. The
/// first one starts in the background as soon as a tool call pushes an
/// action (while the model decides), so the apply finds it done.
#[derive(Debug)]
pub struct UndoObserver {
    root: PathBuf,
    cwd: PathBuf,
    config: Limits,
    state: Arc<Mutex<State>>,
    /// The store's log (its path worked out once: it is looked at after
    /// every tool call).
    log: PathBuf,
    /// How far the log was read for reminders: a lock of its own, so a
    /// tool call's reminders never wait for a snapshot.
    read: Mutex<LogRead>,
    /// The background first snapshot, once started.
    warming: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[derive(Debug, Default)]
struct State {
    store: Option<Store>,
    /// The store could not be opened: said once.
    broken: bool,
    /// What changed since the last snapshot, once armed.
    watcher: Option<Watcher>,
    /// The index holds stamps not yet written to the store.
    unwritten: bool,
    /// The modes, owners and times of the last snapshot's files.
    meta: MetaTable,
}

/// How far the store's log was read.
#[derive(Debug, Default)]
struct LogRead {
    /// The last log number seen; undos after it are reminded of.
    seen: u64,
    /// How far the log was read.
    offset: u64,
    /// The log's length and modification time when last read.
    stamp: Option<(u64, std::time::SystemTime)>,
    /// When the log was last looked at, and this process's log writes
    /// then ([`crate::log::writes`]).
    looked: Option<(Instant, u64)>,
}

/// The undo log is looked at after a tool call at most this often, unless
/// this process wrote it since. Looking costs a `stat` of its path (about
/// 2.7 µs here, more than the rest of a `noop` call), and another
/// process's undo is still reminded of at the first call past this.
const LOOK_EVERY: Duration = Duration::from_millis(5);

fn lock<T>(state: &Mutex<T>) -> MutexGuard<'_, T> {
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
            log: Store::dir_for(root, cwd).join("log.jsonl"),
            read: Mutex::default(),
            warming: Mutex::new(None),
        };
        let log = observer.log.clone();
        if log.exists() {
            match Store::open(root, cwd, config).and_then(|store| store.clean()) {
                Ok(()) => {}
                Err(error) => tracing::warn!("undo store cleanup failed: {error}"),
            }
        }
        let mut read = lock(&observer.read);
        read.stamp = stamp(&log);
        let (lines, offset) = crate::log::read_from(&log, 0).unwrap_or_default();
        read.offset = offset;
        read.seen = lines.iter().map(LogLine::seq).max().unwrap_or(0);
        drop(read);
        observer
    }

    /// Waits for the background first snapshot, if one started.
    pub fn settle(&self) {
        let handle = self
            .warming
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(handle) = handle
            && handle.join().is_err()
        {
            tracing::warn!("the first undo snapshot panicked");
        }
    }

    fn snapshot(&self) -> Option<Oid> {
        let mut state = lock(&self.state);
        open(&mut state, &self.root, &self.cwd, self.config)?;
        let taken = snapshot(&mut state);
        match taken {
            Ok((tree, _)) => Some(tree),
            Err(error) => {
                tracing::warn!("no undo snapshot before this apply: {error}");
                None
            }
        }
    }
}

/// A snapshot of the open store: of what the watcher saw change, or of
/// every file's stamp (the first one, and wherever there is no watcher).
///
/// The index (the stamps) is written to the store after a snapshot that
/// compared every file, and when the session ends; in between it lives in
/// memory, the watcher vouching for it. Not writing it is never wrong,
/// only slower: the next session's first snapshot compares stamps with the
/// last index written and reads again the files changed since.
///
/// The metadata table is refreshed for the same paths; what it held for
/// them before is returned with the tree.
fn snapshot(state: &mut State) -> Result<(Oid, Replaced), UndoError> {
    let State {
        store,
        watcher,
        unwritten,
        meta,
        ..
    } = state;
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
        Dirty::All => {
            let tree = store.snapshot()?;
            let replaced = meta.refresh_all(store.cwd(), &store.repo().index()?);
            store.write_index()?;
            *unwritten = false;
            Ok((tree, replaced))
        }
        Dirty::Paths(paths) => {
            *unwritten |= !paths.is_empty();
            let tree = store.snapshot_paths(&paths)?;
            let replaced = meta.refresh(store.cwd(), &store.repo().index()?, &paths);
            Ok((tree, replaced))
        }
    }
}

impl Drop for State {
    fn drop(&mut self) {
        let Some(store) = &self.store else {
            return;
        };
        if self.unwritten
            && let Err(error) = store.lock().and_then(|_locked| store.write_index())
        {
            tracing::debug!("the undo index was not written: {error}");
        }
    }
}

fn open<'a>(state: &'a mut State, root: &Path, cwd: &Path, config: Limits) -> Option<&'a Store> {
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

    fn action_pushed(&self) {
        let mut warming = self
            .warming
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if warming.is_some() {
            return;
        }
        let (state, root, cwd, config) = (
            Arc::clone(&self.state),
            self.root.clone(),
            self.cwd.clone(),
            self.config,
        );
        let started = std::thread::Builder::new()
            .name("undo-first-snapshot".into())
            .spawn(move || {
                let mut state = lock(&state);
                if state.watcher.is_some() || open(&mut state, &root, &cwd, config).is_none() {
                    return;
                }
                if let Err(error) = snapshot(&mut state) {
                    tracing::warn!("no first undo snapshot: {error}");
                }
            });
        match started {
            Ok(handle) => *warming = Some(handle),
            Err(error) => tracing::debug!("the first undo snapshot waits for the apply: {error}"),
        }
    }

    fn reminders(&self) -> Vec<String> {
        let log = &self.log;
        let mut state = lock(&self.read);
        let writes = crate::log::writes();
        let looked_now = Instant::now();
        if state.looked.is_some_and(|(at, written)| {
            written == writes && looked_now.duration_since(at) < LOOK_EVERY
        }) {
            return Vec::new();
        }
        state.looked = Some((looked_now, writes));
        let now = stamp(log);
        if now == state.stamp {
            return Vec::new();
        }
        state.stamp = now;
        let Ok((lines, offset)) = crate::log::read_from(log, state.offset) else {
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
        let recorded: Result<Option<u64>, UndoError> =
            snapshot(&mut state).and_then(|(after, replaced)| {
                let store = state.store.as_ref().expect("the store is open");
                let _locked = store.lock()?;
                let before_meta = |path: &Path| replaced.before(&state.meta, path);
                store.record_apply(&info, self.before, after, applied, &before_meta)
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
