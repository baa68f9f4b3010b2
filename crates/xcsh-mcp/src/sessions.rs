//! The xcsh sessions of `xcsh mcp --http`: one per MCP session, each with
//! its own pending stack, policies and journal entries, ended as every
//! session ends (what is pending is discarded through its reject code and
//! journaled) when the MCP session ends: a DELETE, the idle timeout, the
//! server's shutdown, or, with something pending, its client gone without
//! a DELETE ([`super::orphans`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

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
    /// The MCP session's id, once a request named it.
    mcp_id: Arc<OnceLock<String>>,
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

    /// Whether the session has an action pending.
    pub fn has_pending(&self) -> bool {
        self.agent.session.store().has_pending()
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
    /// Registers a new session of `agent`, asking through `approver`,
    /// whose MCP session id its server writes into `mcp_id`.
    pub fn add(
        self: &Arc<Self>,
        agent: Arc<Agent>,
        approver: Arc<ElicitingApprover>,
        watcher: PushWatcher,
        mcp_id: Arc<OnceLock<String>>,
    ) -> Arc<LiveSession> {
        let key = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let session = Arc::new(LiveSession {
            agent,
            approver,
            ended: AtomicBool::new(false),
            _watcher: Mutex::new(Some(watcher)),
            key,
            registry: Arc::downgrade(self),
            mcp_id,
        });
        lock(&self.live).insert(key, Arc::downgrade(&session));
        tracing::info!(session = key, "MCP session started");
        session
    }

    /// The live session whose MCP session id is `mcp_id`.
    pub fn find(&self, mcp_id: &str) -> Option<Arc<LiveSession>> {
        lock(&self.live)
            .values()
            .filter_map(Weak::upgrade)
            .find(|session| session.mcp_id.get().is_some_and(|id| id == mcp_id))
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
