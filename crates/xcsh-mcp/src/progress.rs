//! A pack's `report_progress` as `notifications/progress`, for a request
//! that carried a `progressToken`: each partial result is one notification
//! (`progress` counts them, `message` is its text), sent in order and
//! before the call's response.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc;
use xcsh_core::{ContentBlock, ProgressFn, ToolOutput};

/// How long the notifications still queued may take once the call is done.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// Sends one call's progress; [`flush`](Self::flush) after the call.
#[derive(Debug)]
pub struct Progress {
    sender: tokio::task::JoinHandle<()>,
}

impl Progress {
    /// The reporter to give the call's context, and the sender behind it.
    /// Must run inside the runtime.
    pub fn start(peer: Peer<RoleServer>, token: ProgressToken) -> (ProgressFn, Self) {
        let (queue, mut queued) = mpsc::unbounded_channel::<ProgressNotificationParam>();
        let sender = tokio::spawn(async move {
            while let Some(params) = queued.recv().await {
                if let Err(error) = peer.notify_progress(params).await {
                    tracing::debug!(%error, "cannot send notifications/progress");
                }
            }
        });
        let count = AtomicU64::new(0);
        let report: ProgressFn = Arc::new(move |partial: &ToolOutput| {
            let step = count.fetch_add(1, Ordering::Relaxed) + 1;
            // Counts stay far below 2^53, where f64 stops being exact.
            #[allow(clippy::cast_precision_loss)]
            let mut params = ProgressNotificationParam::new(token.clone(), step as f64);
            let text = text_of(partial);
            if !text.is_empty() {
                params = params.with_message(text);
            }
            let _ = queue.send(params);
        });
        (report, Self { sender })
    }

    /// Waits (briefly) until every notification queued went out; the
    /// reporter must be gone (the call's context dropped).
    pub async fn flush(self) {
        if tokio::time::timeout(FLUSH_TIMEOUT, self.sender)
            .await
            .is_err()
        {
            tracing::debug!("gave up sending progress after {FLUSH_TIMEOUT:?}");
        }
    }
}

/// The text blocks of a partial result, one per line.
pub fn text_of(partial: &ToolOutput) -> String {
    partial
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.as_str()),
            ContentBlock::Image { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
