//! A pack's log lines as `notifications/message`: the client picks the
//! least severe level it wants with `logging/setLevel`; until it does, no
//! line goes out (MCP lets the server choose; xcsh sends nothing nobody
//! asked for). During a tool call, each line the call's pack writes at or
//! above that level is one notification (`logger`: the pack's name,
//! `data`: the text), sent in order and before the call's response. Lines
//! outside a call only reach xcsh's own log.

// rmcp marks MCP logging deprecated (SEP-2577); the 2025 revisions that
// clients speak still define it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;
use tokio::sync::mpsc;
use xcsh_core::{LogFn, LogLevel};

/// How long the notifications still queued may take once the call is done.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(1);

/// The level one client asked for with `logging/setLevel` (none yet: no
/// notifications).
#[derive(Debug, Default)]
pub struct ClientLogLevel {
    level: Mutex<Option<LoggingLevel>>,
}

impl ClientLogLevel {
    /// Records the level the client asked for.
    pub fn set(&self, level: LoggingLevel) {
        *xcsh_core::sync::lock(&self.level) = Some(level);
    }

    /// The level the client asked for, if it did.
    pub fn get(&self) -> Option<LoggingLevel> {
        *xcsh_core::sync::lock(&self.level)
    }
}

/// The MCP level of a pack's line: MCP has no `trace`, so it goes out as
/// `debug`.
pub fn mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Trace | LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Warn => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
    }
}

/// Severity order of MCP's levels (RFC 5424's, least severe first).
fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Whether a line at `level` goes to a client that asked for `least`.
pub fn passes(level: LoggingLevel, least: LoggingLevel) -> bool {
    severity(level) >= severity(least)
}

/// Sends one call's log lines; [`flush`](Self::flush) after the call.
#[derive(Debug)]
pub struct Logs {
    sender: tokio::task::JoinHandle<()>,
}

impl Logs {
    /// The sink to give the call's context (it drops lines below `least`),
    /// and the sender behind it. Must run inside the runtime.
    pub fn start(peer: Peer<RoleServer>, least: LoggingLevel) -> (LogFn, Self) {
        let (queue, mut queued) = mpsc::unbounded_channel::<LoggingMessageNotificationParam>();
        let sender = tokio::spawn(async move {
            while let Some(params) = queued.recv().await {
                if let Err(error) = peer.notify_logging_message(params).await {
                    tracing::debug!(%error, "cannot send notifications/message");
                }
            }
        });
        let sink: LogFn = Arc::new(move |level, logger, message| {
            let level = mcp_level(level);
            if passes(level, least) {
                let params =
                    LoggingMessageNotificationParam::new(level, Value::String(message.to_owned()))
                        .with_logger(logger);
                let _ = queue.send(params);
            }
        });
        (sink, Self { sender })
    }

    /// Waits (briefly) until every notification queued went out; the sink
    /// must be gone (the call's context dropped).
    pub async fn flush(self) {
        if tokio::time::timeout(FLUSH_TIMEOUT, self.sender)
            .await
            .is_err()
        {
            tracing::debug!("gave up sending log notifications after {FLUSH_TIMEOUT:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_levels_map_to_mcp_levels() {
        assert_eq!(mcp_level(LogLevel::Trace), LoggingLevel::Debug);
        assert_eq!(mcp_level(LogLevel::Debug), LoggingLevel::Debug);
        assert_eq!(mcp_level(LogLevel::Info), LoggingLevel::Info);
        assert_eq!(mcp_level(LogLevel::Warn), LoggingLevel::Warning);
        assert_eq!(mcp_level(LogLevel::Error), LoggingLevel::Error);
    }

    #[test]
    fn a_line_passes_at_or_above_the_level_asked_for() {
        assert!(passes(LoggingLevel::Info, LoggingLevel::Debug));
        assert!(passes(LoggingLevel::Info, LoggingLevel::Info));
        assert!(!passes(LoggingLevel::Info, LoggingLevel::Notice));
        assert!(!passes(LoggingLevel::Warning, LoggingLevel::Error));
        assert!(passes(LoggingLevel::Error, LoggingLevel::Warning));
    }

    #[test]
    fn no_level_until_the_client_sets_one() {
        let level = ClientLogLevel::default();
        assert_eq!(level.get(), None);
        level.set(LoggingLevel::Warning);
        assert_eq!(level.get(), Some(LoggingLevel::Warning));
    }
}
