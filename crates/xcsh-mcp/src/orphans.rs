//! Sessions whose client went away without a DELETE.
//!
//! The TypeScript SDK's `close()` aborts its requests and its event stream
//! (the GET a client keeps open for server messages) and sends no DELETE,
//! and a client that is killed sends nothing at all. Without more, such a
//! session would wait for the idle timeout (300 s by default) with its
//! actions pending. So the server watches each session's GET streams: when
//! the last one closes and none opens again within the grace period
//! (`--orphan-timeout`), a session with something pending ends as every
//! session ends (its actions discarded through their reject code and
//! journaled). A session with nothing pending is left to the idle timeout,
//! and a client that never opens a GET stream too: nothing tells its
//! departure from a pause.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use rmcp::transport::streamable_http_server::session::SessionManager as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use xcsh_core::sync::lock;

use super::sessions::Sessions;

/// The open GET streams of each MCP session, and what ends a session
/// whose last one closed.
#[derive(Debug)]
pub struct Orphans {
    /// Per MCP session id: open streams, and a count of openings (a timer
    /// started at a close only acts if no stream opened since).
    open: Mutex<HashMap<String, (usize, u64)>>,
    sessions: Arc<Sessions>,
    manager: Arc<LocalSessionManager>,
    grace: Duration,
}

impl Orphans {
    /// A watch over `sessions` (served by `manager`) that ends an
    /// orphaned session with something pending `grace` after its last
    /// stream closed.
    pub fn new(
        sessions: Arc<Sessions>,
        manager: Arc<LocalSessionManager>,
        grace: Duration,
    ) -> Arc<Self> {
        Arc::new(Self {
            open: Mutex::new(HashMap::new()),
            sessions,
            manager,
            grace,
        })
    }

    /// A GET stream of MCP session `id` opened; `body` is its response
    /// body, which tells [`Orphans`] when it closes (the client hung up,
    /// or the server ended it).
    pub fn watch<B>(self: &Arc<Self>, id: String, body: B) -> Watched<B> {
        {
            let mut open = lock(&self.open);
            let entry = open.entry(id.clone()).or_default();
            entry.0 += 1;
            entry.1 += 1;
        }
        Watched {
            body,
            closed: Some(Closed {
                orphans: Arc::clone(self),
                id,
            }),
        }
    }

    fn closed(self: &Arc<Self>, id: String) {
        let opened = {
            let mut open = lock(&self.open);
            let Some(entry) = open.get_mut(&id) else {
                return;
            };
            entry.0 = entry.0.saturating_sub(1);
            if entry.0 > 0 {
                return;
            }
            entry.1
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let orphans = Arc::clone(self);
        runtime.spawn(async move {
            tokio::time::sleep(orphans.grace).await;
            orphans.expired(id, opened).await;
        });
    }

    /// The grace period after the last stream of `id` closed is over.
    async fn expired(&self, id: String, opened: u64) {
        {
            let mut open = lock(&self.open);
            if open.get(&id) != Some(&(0, opened)) {
                return;
            }
            open.remove(&id);
        }
        let Some(live) = self.sessions.find(&id) else {
            return;
        };
        if !live.has_pending() {
            return;
        }
        tracing::info!(
            "the client of MCP session {id} closed its event stream {:?} ago without a DELETE and has not come back: ending the session",
            self.grace
        );
        // Discarding runs pack code: off the async workers.
        let ending = Arc::clone(&live);
        let _ = tokio::task::spawn_blocking(move || ending.end()).await;
        if let Err(error) = self.manager.close_session(&id.clone().into()).await {
            tracing::debug!(%error, "cannot close MCP session {id}");
        }
    }
}

/// Tells [`Orphans`] a stream closed, when dropped.
#[derive(Debug)]
struct Closed {
    orphans: Arc<Orphans>,
    id: String,
}

impl Drop for Closed {
    fn drop(&mut self) {
        self.orphans.closed(std::mem::take(&mut self.id));
    }
}

/// A response body whose end (or drop, when the connection goes) is
/// reported to [`Orphans`].
#[derive(Debug)]
pub struct Watched<B> {
    body: B,
    closed: Option<Closed>,
}

impl<B: Body<Data = Bytes> + Unpin> Body for Watched<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        context: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(context);
        if let Poll::Ready(None) = polled {
            self.closed.take();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
