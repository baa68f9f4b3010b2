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

use std::cell::Cell;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// Said after every crash report; one constant, so the hint changes in one
/// place.
pub const ISOLATION_HINT: &str = "(a pack can run isolated in its own process: --isolate)";

/// A loaded pack as a crash report names it, formatted once at load:
/// `tool pack NAME VERSION (PATH)`, control characters shown as `?`.
#[derive(Debug)]
pub(crate) struct Origin {
    text: String,
}

impl Origin {
    /// The pack `name` `version` loaded from `path`.
    pub(crate) fn new(name: &str, version: &str, path: &Path) -> Arc<Self> {
        let mut text = String::new();
        let _ = write!(text, "tool pack {name} {version} ({})", path.display());
        Arc::new(Self {
            text: printable(&text),
        })
    }
}

/// `s` with every control character replaced by `?`, so a name or label
/// cannot rewrite the terminal from a crash report.
pub(crate) fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// What the current thread is doing in pack code.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    origin: &'a Origin,
    /// `running tool `, `applying pending action `, ….
    doing: &'static str,
    /// The tool's name or the action's (already printable) label.
    subject: &'a str,
}

impl<'a> Call<'a> {
    /// Running tool `name` (a valid tool name: nothing to escape).
    pub(crate) fn tool(origin: &'a Origin, name: &'a str) -> Self {
        Self {
            origin,
            doing: "running tool ",
            subject: name,
        }
    }

    /// Applying the action with (printable) label `label`.
    pub(crate) fn apply(origin: &'a Origin, label: &'a str) -> Self {
        Self {
            origin,
            doing: "applying pending action ",
            subject: label,
        }
    }

    /// Discarding the action with (printable) label `label`.
    pub(crate) fn reject(origin: &'a Origin, label: &'a str) -> Self {
        Self {
            origin,
            doing: "discarding pending action ",
            subject: label,
        }
    }

    /// Creating the pack's tools.
    pub(crate) fn factory(origin: &'a Origin) -> Self {
        Self {
            origin,
            doing: "creating its tools",
            subject: "",
        }
    }
}

thread_local! {
    /// The pack call this thread is in, or null. Const-initialised and
    /// without a destructor, so reading it never allocates or registers
    /// anything: safe from a signal handler.
    static CURRENT: Cell<*const Call<'static>> = const { Cell::new(std::ptr::null()) };
}

/// Marks the thread as in pack code until dropped (nesting restores the
/// outer call).
#[derive(Debug)]
#[must_use = "the call is recorded only while the guard lives"]
pub(crate) struct Entered {
    previous: *const Call<'static>,
}

/// Records `call` as this thread's current pack call.
pub(crate) fn enter(call: &Call<'_>) -> Entered {
    let pointer = std::ptr::from_ref(call).cast::<Call<'static>>();
    Entered {
        previous: CURRENT.with(|current| current.replace(pointer)),
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.previous));
    }
}

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

#[cfg(unix)]
#[allow(unsafe_code)]
mod handler {
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::{CURRENT, Call, ISOLATION_HINT};

    /// The signals pack code dies of, with their names.
    const FATAL: [(libc::c_int, &str); 5] = [
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGABRT, "SIGABRT"),
    ];

    /// The actions that were installed before ours, one per [`FATAL`]
    /// signal, written once by [`install`] before the handler can run.
    static mut PREVIOUS: [std::mem::MaybeUninit<libc::sigaction>; 5] =
        [std::mem::MaybeUninit::uninit(); 5];

    /// Set once a report has been written: a second fault while writing
    /// (or on another thread) adds nothing.
    static REPORTED: AtomicBool = AtomicBool::new(false);

    /// Installs the handler for every [`FATAL`] signal, once per process.
    pub(crate) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            for (index, (signal, _)) in FATAL.iter().enumerate() {
                // SAFETY: a zeroed `sigaction` is a valid value (no handler,
                // empty mask, no flags); every field we rely on is set below.
                let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
                action.sa_sigaction = on_fatal_signal as *const () as libc::sighandler_t;
                // SA_ONSTACK: a stack overflow in pack code still gets a
                // stack to run on (std gives its threads an alternate one).
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                // SAFETY: `action.sa_mask` is a valid, owned sigset_t.
                unsafe { libc::sigemptyset(&raw mut action.sa_mask) };
                // SAFETY: `PREVIOUS[index]` is written here, inside
                // `call_once`, before our handler (its only other reader)
                // is installed for that signal by this same call, so nothing
                // reads or writes it concurrently. `sigaction` is given
                // valid pointers to an initialised action and to storage
                // for the old one.
                unsafe {
                    let previous = (&raw mut PREVIOUS[index]).cast::<libc::sigaction>();
                    if libc::sigaction(*signal, &raw const action, previous) != 0 {
                        tracing::debug!(signal, "cannot install the crash reporter");
                    }
                }
            }
            // SAFETY: `on_exit` is an `extern "C" fn()` that lives for the
            // whole process (it is part of this library, never unloaded).
            if unsafe { libc::atexit(on_exit) } != 0 {
                tracing::debug!("cannot install the exit reporter");
            }
        });
    }

    /// The exit handler: reports an `exit` called from pack code.
    extern "C" fn on_exit() {
        let call = CURRENT.with(std::cell::Cell::get);
        if !call.is_null() && !REPORTED.swap(true, Ordering::SeqCst) {
            // SAFETY: exit handlers run on the thread that called `exit`;
            // a non-null CURRENT there points at the `Call` of a live
            // `Entered` guard on that thread's stack (the pack call that
            // called `exit` never returned, so the guard is not dropped).
            write_line(unsafe { &*call }, " ended the agent by calling exit");
        }
    }

    /// The handler: reports a crash in pack code, then lets the signal do
    /// what it did before.
    extern "C" fn on_fatal_signal(
        signal: libc::c_int,
        info: *mut libc::siginfo_t,
        _context: *mut libc::c_void,
    ) {
        let Some(index) = FATAL.iter().position(|(s, _)| *s == signal) else {
            return;
        };
        let call = CURRENT.with(std::cell::Cell::get);
        if !call.is_null() && !REPORTED.swap(true, Ordering::SeqCst) {
            // SAFETY: a non-null CURRENT points at the `Call` of a live
            // `Entered` guard on this thread's stack: the thread is inside
            // that pack call (the guard resets the slot before the call's
            // frame is gone), and a signal handler runs on the same thread.
            report(unsafe { &*call }, FATAL[index].1);
        }
        if call.is_null() {
            // Not ours: hand back to whatever was there before (std's stack
            // overflow reporter, a debugger, the default action).
            // SAFETY: `PREVIOUS[index]` was initialised by `install` before
            // this handler was installed, and is only read from now on.
            unsafe {
                let previous = (&raw const PREVIOUS[index]).cast::<libc::sigaction>();
                libc::sigaction(signal, previous, std::ptr::null_mut());
            }
        } else {
            // SAFETY: resetting a signal to its default action takes a
            // valid action; a zeroed one with SIG_DFL is that.
            unsafe {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &raw const default, std::ptr::null_mut());
            }
        }
        // A fault (si_code > 0: raised by the CPU) happens again when the
        // handler returns, now under the restored action. Anything sent
        // (abort's raise, kill) is sent again: it is blocked until we return.
        // SAFETY: `info` is the siginfo the kernel passed to this
        // SA_SIGINFO handler; `raise` is async-signal-safe.
        unsafe {
            let sent = info.is_null() || (*info).si_code <= 0;
            if sent || signal == libc::SIGABRT {
                libc::raise(signal);
            }
        }
    }

    /// Writes the one-line report with `write(2)` alone.
    fn report(call: &Call<'_>, signal: &str) {
        write_all(b"fatal: ");
        write_all(call.origin.text.as_bytes());
        write_all(b" crashed the agent with ");
        write_all(signal.as_bytes());
        write_line_end(call);
    }

    /// `fatal: {origin}{what} while {doing} {hint}`, with `write(2)` alone.
    fn write_line(call: &Call<'_>, what: &str) {
        write_all(b"fatal: ");
        write_all(call.origin.text.as_bytes());
        write_all(what.as_bytes());
        write_line_end(call);
    }

    /// ` while {doing}{subject} {hint}` and the line break.
    fn write_line_end(call: &Call<'_>) {
        for piece in [
            " while ",
            call.doing,
            call.subject,
            " ",
            ISOLATION_HINT,
            "\n",
        ] {
            write_all(piece.as_bytes());
        }
    }

    fn write_all(mut bytes: &[u8]) {
        while !bytes.is_empty() {
            // SAFETY: `bytes` is a valid, initialised slice for its length;
            // write(2) is async-signal-safe.
            let written =
                unsafe { libc::write(libc::STDERR_FILENO, bytes.as_ptr().cast(), bytes.len()) };
            if written <= 0 {
                return;
            }
            bytes = &bytes[written.unsigned_abs()..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_names_the_pack_with_controls_made_harmless() {
        let origin = Origin::new("evil\u{1b}[2J", "1.0\n", Path::new("/p/lib.so"));
        assert_eq!(origin.text, "tool pack evil?[2J 1.0? (/p/lib.so)");
    }

    #[test]
    fn entering_nests_and_restores() {
        let origin = Origin::new("p", "1", Path::new("/p"));
        let outer = Call::tool(&origin, "outer");
        let inner = Call::apply(&origin, "inner");
        let current = || CURRENT.with(Cell::get);
        assert!(current().is_null());
        {
            let _outer = enter(&outer);
            assert_eq!(current(), std::ptr::from_ref(&outer).cast());
            {
                let _inner = enter(&inner);
                assert_eq!(current(), std::ptr::from_ref(&inner).cast());
            }
            assert_eq!(current(), std::ptr::from_ref(&outer).cast());
        }
        assert!(current().is_null());
    }
}
