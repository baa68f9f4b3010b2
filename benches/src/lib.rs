//! Support for xcsh's benchmarks: building the packs (and the agent) they
//! load, fresh copies of a pack for load benchmarks, the call arguments they
//! send, and the report that sets each figure beside its baseline.
//!
//! The benchmarks themselves live in `benches/`:
//!
//! | bench | figure | baseline, same run |
//! | --- | --- | --- |
//! | `load` | open, check, call factories, register tools of 1/10/100 packs | `dlopen` + root-symbol lookup of the same number of copies |
//! | `load_fresh` | the same, each load in a fresh process | `dlopen` + root-symbol lookup of the same files, in a fresh process |
//! | `call` | one tool call through the session, and through the ABI alone | the same tool code called directly |
//! | `resolve` | a pack pushes an action, `resolve` applies it | bare store push + pop |
//! | `startup` | `xcsh tools` with 0/10/100 packs, wall time and peak RSS | `xcsh tools` with no pack |
//! | `isolate` | a call, a push + `resolve` cycle and `xcsh tools` start-up with the pack isolated | the same in-process; a bare round trip between two processes over pipes, blocking and polling |
//! | `handoff` | a call with the default time limit, wall and CPU time; the hand-offs weighed | the same call without a limit; the job inline |
//! | `script` | `xcsh run` over 100,000 `noop` lines, in-process and isolated: calls/s, peak RSS | parse, call and serialise the same lines in one process |
//!
//! Run them all with `benches/run.sh` (see `BENCHMARKS.md`). Nothing here
//! is for use outside the benchmarks.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod arguments;
pub mod build;
pub mod copies;
#[cfg(unix)]
pub mod floor;
pub mod process_run;
pub mod report;

pub use build::{bench_pack_path, profile_dir, target_dir, xcsh_binary};
pub use copies::PackCopies;
