//! A crash in pack code names the pack on its way down.
//!
//! A pack that dereferences a bad pointer, divides by zero or calls
//! `abort()` takes the whole agent with it: no guard can catch that in
//! process. What the agent can still do is say who did it. Before every
//! crossing into pack code (factory, tool, apply, reject) the loader records
//! the call in a thread-local slot ([`enter`]); a handler for SIGSEGV,
//! SIGBUS, SIGILL, SIGFPE and SIGABRT, installed once ([`install`]), writes
//! one line to stderr when the dying thread was in pack code:
//!
//! ```text
//! fatal: tool pack fixture-crashy 0.1.0 (/path/libfixture_crashy.so) crashed the agent with SIGSEGV while running tool crashy_segfault (a pack can run isolated in its own process: --isolate)
//! ```
//!
//! then restores the signal's default action and raises it again, so the
//! process still dies of that signal (its exit status and core dump are
//! unchanged). The handler only reads the slot and calls `write(2)`,
//! `sigaction(2)` and `raise(3)`, all async-signal-safe; everything it
//! prints was formatted when the pack loaded. A crash on a thread that is
//! not in pack code (or a thread a pack started itself) is left to the
//! handler that was there before.
//!
//! A pack that calls `exit()` ends the process normally, running no signal
//! handler but the process's exit handlers: one of them, registered with
//! the signal handler, writes the same kind of line when the thread
//! calling `exit` was in pack code (the exit status stays the pack's):
//!
//! ```text
//! fatal: tool pack fixture-crashy 0.1.0 (/path/libfixture_crashy.so) ended the agent by calling exit while running tool crashy_exit (a pack can run isolated in its own process: --isolate)
//! ```
//!
//! (`_exit` runs no handler at all and stays unreported.)
//!
//! Before either line, the reporters write out what a [`BatchedStdout`]
//! still holds: the answers a front end had finished are not lost with
//! the process.

#[allow(unsafe_code)]
mod batched;
mod call;
#[cfg(unix)]
#[allow(unsafe_code)]
mod handler;

pub use batched::{BATCH_BYTES, BatchedStdout};
pub use call::ISOLATION_HINT;
pub(crate) use call::{Call, Origin, enter, printable};

/// Whether this process reports pack crashes (see [`disable_crash_reports`]).
static REPORTS_ENABLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Stops this process from installing the crash reporter. The process that
/// serves an isolated pack calls it before opening the pack: there a crash
/// ends only that process, and the agent reports it (pack, tool, signal),
/// so a `crashed the agent` line would be wrong.
pub fn disable_crash_reports() {
    REPORTS_ENABLED.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// Installs the crash reporter, once per process, unless disabled.
pub(crate) fn install() {
    if REPORTS_ENABLED.load(std::sync::atomic::Ordering::Relaxed) {
        install_handler();
    }
}

#[cfg(unix)]
use handler::install as install_handler;

/// Does nothing where there are no signals.
#[cfg(not(unix))]
fn install_handler() {}
