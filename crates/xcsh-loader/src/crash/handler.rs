//! The handler for the signals pack code dies of, and the exit handler
//! (Unix only): one line naming the pack, then the signal's default action.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use super::batched::write_out_for_report;
use super::call::{CURRENT, Call, ISOLATION_HINT};

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
        write_out_for_report();
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
        write_out_for_report();
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
