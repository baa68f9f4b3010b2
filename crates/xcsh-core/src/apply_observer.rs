//! The extension point around every apply: an [`ApplyObserver`] sees each
//! apply `resolve` runs, before and after, whoever produced the action (a
//! built-in, an in-process pack, an isolated pack), without the producer
//! doing anything. Undo snapshots are built on it.

use std::fmt;

use crate::approval::Policy;

/// The apply about to run.
#[derive(Clone, Copy, Debug)]
pub struct ApplyInfo<'a> {
    /// The action's label.
    pub label: &'a str,
    /// The tool whose call pushed the action.
    pub tool: &'a str,
    /// The source tool name the producer gave the action.
    pub source_tool_name: &'a str,
    /// The approval policy the tool's applies are under.
    pub policy: Policy,
}

/// Watches every apply of a session. Called on the session's threads, with
/// no lock of the session held; a panic is caught and logged, and the apply
/// goes on as if there were no observer.
pub trait ApplyObserver: Send + Sync {
    /// Called just before an apply runs; the returned watch is told when it
    /// returned. `None`: nothing to watch for this one.
    fn before_apply(&self, apply: &ApplyInfo<'_>) -> Option<Box<dyn ApplyWatch>>;

    /// Hidden messages for the model, asked after every tool call (for
    /// example: a person undid an apply since the last call).
    fn reminders(&self) -> Vec<String> {
        Vec::new()
    }

    /// A tool call pushed a pending action: an apply may follow, so work
    /// the first apply would do can start now (told after that call, on
    /// its thread; should return at once).
    fn action_pushed(&self) {}
}

/// One apply being watched.
pub trait ApplyWatch: Send {
    /// The apply returned (`applied`: successfully). Returns what the
    /// journal entry of the apply records as its `snapshot`, if anything.
    fn after_apply(self: Box<Self>, applied: bool) -> Option<String>;
}

impl fmt::Debug for dyn ApplyObserver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApplyObserver")
    }
}

impl fmt::Debug for dyn ApplyWatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApplyWatch")
    }
}
