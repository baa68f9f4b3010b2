//! `notifications/tools/list_changed`: with
//! [`ResolveListing::WhilePending`], `resolve` is listed only while
//! something is pending, so the tool list changes whenever the stack goes
//! from empty to not empty or back. With [`ResolveListing::Always`] the
//! list never changes, and nothing is sent.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::service::{Peer, RoleServer, SubscriptionSink};
use xcsh_core::PendingActionStore;

use super::listing::ResolveListing;
use xcsh_core::sync::lock;

/// Tells the client when the offered tools change.
///
/// Handshake-era clients (protocol revisions up to 2025-11-25, which open
/// with `initialize`) get the notification on the connection itself; 2026
/// clients get it on each `subscriptions/listen` stream that asked for it.
#[derive(Debug)]
pub struct ListChanged {
    store: Arc<PendingActionStore>,
    /// When `resolve` is listed.
    listing: ResolveListing,
    /// Whether the client was last told that `resolve` is listed; held
    /// while a notification is sent, so a caller that finds nothing to do
    /// knows any notification due was already written.
    announced: tokio::sync::Mutex<bool>,
    peer: Mutex<Option<Peer<RoleServer>>>,
    streams: Mutex<Vec<(u64, SubscriptionSink)>>,
    next_stream: Mutex<u64>,
}

/// How long one notification may wait to be written. Once the client has
/// closed its end, rmcp only drains responses, so an unbounded wait would
/// hold back the response of the call that changed the list.
const SEND_TIMEOUT: Duration = Duration::from_secs(1);

/// Sends one notification, logging (at debug) why it did not go out.
async fn send<E: std::fmt::Display>(what: &str, sending: impl Future<Output = Result<(), E>>) {
    match tokio::time::timeout(SEND_TIMEOUT, sending).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::debug!(%error, "cannot send {what}"),
        Err(_) => tracing::debug!("gave up sending {what} after {SEND_TIMEOUT:?}"),
    }
}

impl ListChanged {
    /// A notifier for the tool list of the session owning `store`, which
    /// has nothing pending yet as far as the client knows, listing
    /// `resolve` as `listing` says.
    pub fn new(store: Arc<PendingActionStore>, listing: ResolveListing) -> Self {
        Self {
            store,
            listing,
            announced: tokio::sync::Mutex::new(false),
            peer: Mutex::new(None),
            streams: Mutex::new(Vec::new()),
            next_stream: Mutex::new(0),
        }
    }

    /// Remembers the connection's peer (every request carries it).
    pub fn set_peer(&self, peer: &Peer<RoleServer>) {
        let mut slot = lock(&self.peer);
        if slot.is_none() {
            *slot = Some(peer.clone());
        }
    }

    /// Adds a `subscriptions/listen` stream; returns its key for
    /// [`remove_stream`](Self::remove_stream).
    pub fn add_stream(&self, sink: SubscriptionSink) -> u64 {
        let key = {
            let mut next = lock(&self.next_stream);
            *next += 1;
            *next
        };
        lock(&self.streams).push((key, sink));
        key
    }

    /// Removes a stream added by [`add_stream`](Self::add_stream).
    pub fn remove_stream(&self, key: u64) {
        lock(&self.streams).retain(|(k, _)| *k != key);
    }

    /// Sends `notifications/tools/list_changed` if `resolve`'s presence in
    /// the list changed since the client was last told.
    pub async fn sync(&self) {
        if self.listing == ResolveListing::Always {
            return;
        }
        let mut announced = self.announced.lock().await;
        let offered = self.store.has_pending();
        if *announced == offered {
            return;
        }
        *announced = offered;
        tracing::debug!(resolve_listed = offered, "tool list changed");
        let peer = lock(&self.peer).clone();
        // Only a handshake-era connection (it stored the client's
        // `initialize`) takes notifications outside a listen stream.
        if let Some(peer) = peer.filter(|peer| peer.peer_info().is_some()) {
            send(
                "notifications/tools/list_changed",
                peer.notify_tool_list_changed(),
            )
            .await;
        }
        let streams: Vec<SubscriptionSink> =
            lock(&self.streams).iter().map(|(_, s)| s.clone()).collect();
        for stream in streams {
            send(
                "notifications/tools/list_changed on a listen stream",
                stream.notify_tool_list_changed(),
            )
            .await;
        }
    }
}
