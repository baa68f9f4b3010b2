//! A session's approval settings and what it remembers of each push.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use super::{Approver, Journal, JournalEntry, JournalEvent, Policy, PolicyFn};
use crate::apply_observer::ApplyObserver;
use crate::pending::PendingEntry;

/// Where a pending action came from: the tool call that pushed it and
/// the text that call returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) tool: String,
    pub(crate) preview: String,
}

/// Shared by a session and its `resolve` tool.
#[derive(Default)]
pub(crate) struct Approvals {
    policy: RwLock<Option<Arc<PolicyFn>>>,
    approver: RwLock<Option<Arc<dyn Approver>>>,
    journal: RwLock<Option<Arc<dyn Journal>>>,
    observer: RwLock<Option<Arc<dyn ApplyObserver>>>,
    origins: Mutex<HashMap<u64, Origin>>,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals")
            .field("remembered", &lock(&self.origins).len())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn read<T: Clone>(slot: &RwLock<Option<T>>) -> Option<T> {
    slot.read().unwrap_or_else(|p| p.into_inner()).clone()
}

fn write<T>(slot: &RwLock<Option<T>>, value: T) {
    *slot.write().unwrap_or_else(|p| p.into_inner()) = Some(value);
}

impl Approvals {
    pub(crate) fn set_policy(&self, policy: Arc<PolicyFn>) {
        write(&self.policy, policy);
    }

    pub(crate) fn set_approver(&self, approver: Arc<dyn Approver>) {
        write(&self.approver, approver);
    }

    pub(crate) fn set_journal(&self, journal: Arc<dyn Journal>) {
        write(&self.journal, journal);
    }

    pub(crate) fn set_observer(&self, observer: Arc<dyn ApplyObserver>) {
        write(&self.observer, observer);
    }

    pub(crate) fn observer(&self) -> Option<Arc<dyn ApplyObserver>> {
        read(&self.observer)
    }

    pub(crate) fn approver(&self) -> Option<Arc<dyn Approver>> {
        read(&self.approver)
    }

    /// The policy of the tool called `tool` (`model` when none is set).
    pub(crate) fn policy(&self, tool: &str) -> Policy {
        read(&self.policy).map_or(Policy::Model, |policy| policy(tool))
    }

    pub(crate) fn remember(&self, id: u64, origin: Origin) {
        lock(&self.origins).insert(id, origin);
    }

    pub(crate) fn origin(&self, id: u64) -> Option<Origin> {
        lock(&self.origins).get(&id).cloned()
    }

    /// Forgets an action that left the stack.
    pub(crate) fn forget(&self, id: u64) {
        lock(&self.origins).remove(&id);
    }

    /// The tool an entry is attributed to: the call that pushed it, else
    /// its source tool name.
    pub(crate) fn tool_of(&self, entry: &PendingEntry) -> String {
        self.origin(entry.id())
            .map_or_else(|| entry.action().source_tool_name().to_owned(), |o| o.tool)
    }

    /// A journal entry about `entry`, with the fields every event has.
    pub(crate) fn entry(
        &self,
        event: JournalEvent,
        entry: &PendingEntry,
        outcome: &str,
    ) -> JournalEntry {
        let tool = self.tool_of(entry);
        JournalEntry {
            event,
            policy: self.policy(&tool),
            tool,
            label: entry.action().label().to_owned(),
            source_tool_name: entry.action().source_tool_name().to_owned(),
            action: None,
            reason: None,
            decided_by: None,
            outcome: outcome.to_owned(),
            error: None,
            preview: None,
            details: None,
            snapshot: None,
        }
    }

    /// Sends `entry` to the journal, if the session has one. A panicking
    /// journal is logged; the session goes on.
    pub(crate) fn record(&self, entry: JournalEntry) {
        if let Some(journal) = read(&self.journal)
            && let Err(message) = crate::panic::catch(|| journal.record(&entry))
        {
            tracing::warn!("the journal failed: {message}");
        }
    }

    /// Has the journal, if the session has one, write out and flush what
    /// it holds back ([`Journal::flush`]): the session ends.
    pub(crate) fn flush_journal(&self) {
        if let Some(journal) = read(&self.journal)
            && let Err(message) = crate::panic::catch(|| journal.flush())
        {
            tracing::warn!("the journal failed: {message}");
        }
    }
}
