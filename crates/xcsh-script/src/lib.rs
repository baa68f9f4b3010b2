//! The scripted-session protocol, shared by `xcsh run` and `xcsh repl`.
//!
//! In: one tool call per line, `{"tool": NAME, "arguments": {...}, "id": ...}`
//! (`arguments` defaults to `{}`, `id` is any JSON value and is echoed back).
//! Out: one [`Step`] per call, as JSON:
//!
//! ```json
//! {"line": 1, "id": null, "tool": "batch_rename_preview",
//!  "result": {"content": [...], "details": {...}, "isError": false},
//!  "pending": 1, "toolChoice": {"type": "tool", "name": "resolve"},
//!  "reminders": ["<system-reminder>\n…\n</system-reminder>"]}
//! ```
//!
//! A line that is not a tool call, an unknown tool and invalid arguments each
//! give an error result for that line; the session goes on and nothing
//! pending is lost. A line's JSON may take at most three times the line's
//! size in memory (plus 1 MiB); one that would take more is refused.
//!
//! It drives any [`xcsh_core::Session`] and knows nothing of where the
//! lines come from: `xcsh run` reads a file or standard input, the REPL a
//! terminal, the benchmarks and the fuzz target a buffer.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
mod budget;
mod request;
mod step;
mod step_turns;
mod steps;

pub use request::{Rejected, Request, parse_line, parse_request};
pub use step::{PENDING_SHOWN, Step};
pub use step_turns::{StepFront, StepTurns};
pub use steps::{ShowProgress, Started, Steps};

#[cfg(test)]
mod tests;
