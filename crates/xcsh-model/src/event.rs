//! What the loop reports as it goes, and how it ended.

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use xcsh_core::{ToolCall, ToolChoice, ToolResult};

use crate::Usage;
use crate::ladder::Step;

/// Something the loop did, for a front end to show.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "event"
)]
#[non_exhaustive]
pub enum Event<'a> {
    /// A request is about to go out.
    Request {
        /// Its number, from 1.
        turn: u32,
        /// The tool choice sent.
        tool_choice: &'a ToolChoice,
        /// How many tools were offered.
        tools: usize,
    },
    /// The model's text in one answer (not sent when empty).
    Text {
        /// The text.
        text: &'a str,
        /// What the request took.
        usage: Usage,
    },
    /// One tool call ran in the session.
    Call {
        /// The call.
        call: &'a ToolCall,
        /// Its result.
        result: &'a ToolResult,
    },
    /// The tool-choice ladder stepped down (also logged at warn level).
    Ladder {
        /// The step.
        step: &'a Step,
    },
    /// A request failed for a transient reason and goes out again after
    /// `delay` (also logged at warn level).
    Retry {
        /// The attempt about to be made, from 2.
        attempt: u32,
        /// The most attempts.
        attempts: u32,
        /// The wait before it.
        #[serde(serialize_with = "seconds")]
        delay: Duration,
        /// What failed, one line.
        error: &'a str,
    },
    /// A tool call of the answer was not run: the answer made more calls
    /// than one answer may run. The model reads `message` as the call's
    /// (error) result.
    NotRun {
        /// The call.
        call: &'a ToolCall,
        /// What the model is told.
        message: &'a str,
    },
}

/// Why the loop ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum EndReason {
    /// The model answered without tool calls and nothing is pending.
    Finished,
    /// Every rung of the ladder was tried for the action on top and the
    /// model never called `resolve`.
    NeverResolved {
        /// The action's label.
        label: String,
    },
    /// The turn limit.
    Turns {
        /// The limit.
        limit: u32,
    },
    /// The token limit.
    Tokens {
        /// Tokens used.
        used: u64,
        /// The limit.
        limit: u64,
    },
    /// The wall-time limit.
    Time {
        /// The limit.
        #[serde(serialize_with = "seconds")]
        limit: Duration,
    },
    /// Interrupted (Ctrl-C).
    Interrupted,
    /// A request failed and the ladder had nothing to step down to.
    Failed {
        /// The error, one line.
        message: String,
    },
}

fn seconds<S: serde::Serializer>(limit: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(limit.as_secs_f64())
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Finished => f.write_str("the model finished"),
            Self::NeverResolved { label } => write!(
                f,
                "the model never called resolve for \"{label}\" at any tool choice"
            ),
            Self::Turns { limit } => write!(f, "turn limit reached ({limit} requests)"),
            Self::Tokens { used, limit } => {
                write!(f, "token limit reached ({used} of {limit} tokens)")
            }
            Self::Time { limit } => write!(f, "time limit reached ({} s)", limit.as_secs_f64()),
            Self::Interrupted => f.write_str("interrupted"),
            Self::Failed { message } => write!(f, "model request failed: {message}"),
        }
    }
}

/// How a loop went.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Why it ended.
    pub reason: EndReason,
    /// `reason` as one line.
    pub message: String,
    /// Requests sent.
    pub turns: u32,
    /// Tokens used, as the provider counted them.
    pub tokens: u64,
    /// Pending actions discarded when the loop ended.
    pub discarded: usize,
}
