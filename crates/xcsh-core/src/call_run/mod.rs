//! Running a tool call under the session's time limit.
//!
//! Every call takes the same three steps (`prepared`): its tool is looked
//! up and its arguments checked, the tool runs, and what came back (a
//! value, a panic, a timeout) becomes the model's result, the size cap
//! applied and the pushes remembered by the session. Code that never
//! returns cannot be stopped from outside (threads cannot be killed
//! safely), so a call past the limit is abandoned, whichever way it came
//! in: what it pushed is taken back, its cancellation flag is set, later
//! pushes from its thread are refused, its result is
//! `Tool {name} timed out after {limit}`, and the stuck thread ends when
//! its call returns, if ever, its late result dropped. `resolve` keeps the
//! limit on its apply and reject itself, and a tool that enforces the
//! limit itself (an isolated pack's process) runs unwatched.
//!
//! # The two ways in
//!
//! - [`drive`], with the front end's loop as [`Turns`]: `xcsh run`,
//!   `xcsh repl`, `xcsh agent`. A front end that reads calls one after
//!   another gives its loop away: the loop and its calls run on one session
//!   thread and the caller's thread keeps the limit (`watchdog`), so a
//!   call costs no thread hand-off. At a timeout the loop goes on from a
//!   fresh session thread.
//! - [`watched_call`], its limit kept by a [`CallTimer`]: `xcsh mcp`. The
//!   MCP server has no loop to give away: requests come concurrently, each
//!   call already runs on a tokio blocking thread and is awaited from an
//!   async task. The call runs on the thread that takes its
//!   [`WatchedRun`]; one timer thread per process expires its
//!   [`CallWatch`] at the limit and answers for it.
//!
//! [`Session::execute`](crate::Session::execute) is no third way:
//! it is one call as [`drive`] runs each call when it cannot start a
//! session thread (`one_call`), on the caller's thread with the tool on
//! a reused worker (`runner`). It stays for callers with one call and a
//! plain `&Session` (the pack authors' harness `xcsh-pack-test`, tests,
//! benchmarks, the doc examples): a drive of one call would start a session
//! thread per call, tens of microseconds against two microseconds.
//!
//! # Inside
//!
//! Each module imports only those before it, and the session sits in the
//! middle:
//!
//! - `spin`: waiting for another thread, a short adaptive spin and then
//!   parking ([`Spin`]);
//! - `runner`: the session's limits and its workers, which also run the
//!   apply and reject code of `resolve`;
//! - `prepared`: the [`ToolCall`](crate::ToolCall) made ready (tool found,
//!   arguments checked), its result, its timeout; what it needs of the
//!   session is a trait, `CallHost`, which the session implements;
//! - `one_call`: one call on the caller's thread (`Session::execute`);
//! - then the session (`crate::session`), which uses the modules above;
//! - `watchdog`: one deadline watched by another thread, for [`drive`];
//! - `drive` and `watched` (then `timer`): the ways in, which hand the
//!   session to the front end.

mod drive;
pub(crate) mod one_call;
pub(crate) mod prepared;
pub(crate) mod runner;
mod spin;
mod timer;
mod watchdog;
mod watched;
#[cfg(test)]
mod work_tool;

pub use drive::{Turns, drive};
pub use spin::{Spin, SpinMissed};
pub use timer::CallTimer;
pub use watched::{CallWatch, WatchedRun, watched_call};
