//! The xcsh sessions of `xcsh mcp --http`: one per MCP session, each with
//! its own pending stack, policies and journal entries, ended as every
//! session ends (what is pending is discarded through its reject code and
//! journaled) when the MCP session ends: a DELETE, the idle timeout, or the
//! server's shutdown.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use xcsh_core::sync::lock;

use super::elicit::ElicitingApprover;
use super::server::PushWatcher;
use xcsh_agent::Agent;

/// One MCP session's xcsh session; ends it when the last handle drops (rmcp
/// drops the session's handler when the MCP session closes).
#[derive(Debug)]
pub struct LiveSession {
    agent: Arc<Agent>,
    approver: Arc<ElicitingApprover>,
    ended: AtomicBool,
    _watcher: Mutex<Option<PushWatcher>>,
    key: u64,
    registry: Weak<Sessions>,
}

impl LiveSession {
    /// Ends the session now (once): cancels a question outstanding and
    /// discards what is pending.
    pub fn end(&self) {
        if self.ended.swap(true, Ordering::SeqCst) {
            return;
        }
        self.approver.close();
        lock(&self._watcher).take();
        tracing::info!(session = self.key, "MCP session ended");
        self.agent.session.end();
    }
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        if let Some(registry) = self.registry.upgrade() {
            lock(&registry.live).remove(&self.key);
        }
        // Discarding runs pack code (bounded by the tool timeout); off the
        // async worker so other sessions go on meanwhile.
        match tokio::runtime::Handle::try_current() {
            Ok(handle) if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
                tokio::task::block_in_place(|| self.end());
            }
            _ => self.end(),
        }
    }
}

/// The live sessions, for the shutdown.
#[derive(Debug, Default)]
pub struct Sessions {
    live: Mutex<HashMap<u64, Weak<LiveSession>>>,
    next: AtomicU64,
}

impl Sessions {
    /// Registers a new session of `agent`, asking through `approver`.
    pub fn add(
        self: &Arc<Self>,
        agent: Arc<Agent>,
        approver: Arc<ElicitingApprover>,
        watcher: PushWatcher,
    ) -> Arc<LiveSession> {
        let key = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let session = Arc::new(LiveSession {
            agent,
            approver,
            ended: AtomicBool::new(false),
            _watcher: Mutex::new(Some(watcher)),
            key,
            registry: Arc::downgrade(self),
        });
        lock(&self.live).insert(key, Arc::downgrade(&session));
        tracing::info!(session = key, "MCP session started");
        session
    }

    /// How many sessions are live.
    pub fn len(&self) -> usize {
        lock(&self.live).len()
    }

    /// Whether no session is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends every live session (the server is shutting down).
    pub fn end_all(&self) {
        let live: Vec<Arc<LiveSession>> = lock(&self.live)
            .values()
            .filter_map(Weak::upgrade)
            .collect();
        for session in live {
            session.end();
        }
    }
}
