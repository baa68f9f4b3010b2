//! When `resolve` is in the tool list.
//!
//! The contract hides `resolve` while nothing is pending and announces
//! every change with `notifications/tools/list_changed`. A client that
//! reads the list once and ignores the notification (Claude Code, in its
//! own issue tracker since 2025) never sees `resolve` at all, and its model
//! is told by every preview to call a tool it cannot. So by default the
//! server lists `resolve` always, and a call with nothing pending answers
//! `No pending action to resolve. Nothing to apply or discard.`;
//! [`ResolveListing::WhilePending`] keeps the contract's hidden tool for
//! clients that follow the list.

use std::fmt;
use std::str::FromStr;

/// When `tools/list` has `resolve`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ResolveListing {
    /// Always: the list never changes, so a client that keeps its first
    /// list can call `resolve` whenever a preview asks for it.
    #[default]
    Always,
    /// Only while something is pending, with
    /// `notifications/tools/list_changed` whenever that changes (the
    /// contract's hidden tool).
    WhilePending,
}

impl ResolveListing {
    /// The name on the command line (`--list-resolve`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Always => "always",
            Self::WhilePending => "while-pending",
        }
    }

    /// What the server tells a client model in `initialize` (and discovery).
    pub fn instructions(self) -> &'static str {
        match self {
            Self::Always => INSTRUCTIONS_ALWAYS,
            Self::WhilePending => INSTRUCTIONS_WHILE_PENDING,
        }
    }
}

/// [`ResolveListing::instructions`] for [`ResolveListing::Always`].
pub const INSTRUCTIONS_ALWAYS: &str = "Destructive tools only preview: they register a pending action \
and change nothing. Call `resolve` with {\"action\": \"apply\" | \"discard\", \"reason\": \"...\"} \
to apply or discard the newest one; with nothing pending it says so and does nothing.";

/// [`ResolveListing::instructions`] for [`ResolveListing::WhilePending`].
pub const INSTRUCTIONS_WHILE_PENDING: &str = "Destructive tools only preview: they register a pending action \
and change nothing. Call `resolve` with {\"action\": \"apply\" | \"discard\", \"reason\": \"...\"} \
to apply or discard the newest one; `resolve` is listed only while something is pending.";

impl fmt::Display for ResolveListing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ResolveListing {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "always" => Ok(Self::Always),
            "while-pending" => Ok(Self::WhilePending),
            other => Err(format!("expected always or while-pending, not {other:?}")),
        }
    }
}
