//! Standard output written in batches, whose unwritten batch a crash in
//! pack code still writes out.
//!
//! A front end that answers a script in batches (`xcsh run` reading a
//! file) holds finished answers in memory until the batch is full or it
//! would wait for input. A pack that segfaults, aborts or calls `exit`
//! before that would take those answers with it: the steps that had
//! finished would be lost although they ran. So the batch lives here,
//! where the crash reporter can reach it: before its one-line report it
//! writes out what the batch holds, with `write(2)` alone.
//!
//! The batch is one per process, guarded by one atomic: a writer takes it
//! (`FREE` → `BUSY`) for each write or flush, and the crash reporter takes
//! it for good (`FREE` → `GONE`) or, if a writer on another thread holds it
//! at that moment, leaves it (a signal handler cannot wait).

use std::cell::UnsafeCell;
use std::io;
use std::sync::atomic::{AtomicU8, Ordering};

/// How many bytes a batch holds before it is written out.
pub const BATCH_BYTES: usize = 64 * 1024;

/// No one holds the batch.
const FREE: u8 = 0;
/// A writer holds the batch.
const BUSY: u8 = 1;
/// The crash reporter took the batch: the process is ending.
const GONE: u8 = 2;

/// The process's one batch.
struct Batch {
    state: AtomicU8,
    bytes: UnsafeCell<Vec<u8>>,
}

// SAFETY: `bytes` is only touched by whoever moved `state` from `FREE`
// (to `BUSY` or `GONE`), which one thread at a time can do.
unsafe impl Sync for Batch {}

static BATCH: Batch = Batch {
    state: AtomicU8::new(FREE),
    bytes: UnsafeCell::new(Vec::new()),
};

/// Standard output, written in batches of [`BATCH_BYTES`]; what a batch
/// holds when pack code crashes the process (or calls `exit`) is written
/// out before the crash report.
///
/// Every `BatchedStdout` shares the process's one batch, like
/// [`io::Stdout`] shares its buffer. Writing bypasses `io::stdout()`'s own
/// buffer: flush one before writing to the other.
#[derive(Debug, Default)]
pub struct BatchedStdout {
    _private: (),
}

impl BatchedStdout {
    /// A handle on the process's batch.
    #[must_use]
    pub fn new() -> Self {
        Self { _private: () }
    }
}

/// The batch, held by this thread until dropped.
struct Held;

impl Held {
    fn take() -> Self {
        loop {
            match BATCH.state.compare_exchange_weak(
                FREE,
                BUSY,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Self,
                // Another writer holds it for one write, or the process is
                // ending under the crash reporter: either way, wait.
                Err(_) => std::thread::yield_now(),
            }
        }
    }

    fn bytes(&mut self) -> &mut Vec<u8> {
        // SAFETY: this `Held` moved the state from FREE to BUSY and
        // resets it only when dropped, so no one else touches the bytes
        // while the returned borrow (tied to `&mut self`) lives.
        unsafe { &mut *BATCH.bytes.get() }
    }

    /// Writes the batch out and empties it; what could not be written
    /// stays.
    fn write_out(&mut self) -> io::Result<()> {
        let bytes = self.bytes();
        let mut written = 0;
        let result = write_fully(&bytes[..], &mut written);
        bytes.drain(..written);
        result
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        BATCH.state.store(FREE, Ordering::Release);
    }
}

impl io::Write for BatchedStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut held = Held::take();
        if held.bytes().len() + buf.len() > BATCH_BYTES {
            held.write_out()?;
        }
        if buf.len() >= BATCH_BYTES {
            // Too long to hold: straight out, after what was held.
            let mut written = 0;
            write_fully(buf, &mut written)?;
            return Ok(buf.len());
        }
        let bytes = held.bytes();
        if bytes.capacity() == 0 {
            bytes.reserve_exact(BATCH_BYTES);
        }
        bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Held::take().write_out()
    }
}

/// Writes `bytes` to standard output, counting into `written` how many
/// went out (also when it fails part way).
fn write_fully(bytes: &[u8], written: &mut usize) -> io::Result<()> {
    while *written < bytes.len() {
        match write_some(&bytes[*written..]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(count) => *written += count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

#[cfg(unix)]
fn write_some(bytes: &[u8]) -> io::Result<usize> {
    // SAFETY: `bytes` is a valid, initialised slice for its length.
    let written = unsafe { libc::write(libc::STDOUT_FILENO, bytes.as_ptr().cast(), bytes.len()) };
    if written < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(written.unsigned_abs())
    }
}

#[cfg(not(unix))]
fn write_some(bytes: &[u8]) -> io::Result<usize> {
    io::Write::write(&mut io::stdout().lock(), bytes)
}

/// Writes out what the batch holds, for the crash and exit reporters:
/// only atomics and `write(2)`, so it may run in a signal handler. Takes
/// the batch for good (nothing is written after it); does nothing if a
/// writer holds it now.
#[cfg(unix)]
pub(super) fn write_out_for_report() {
    if BATCH
        .state
        .compare_exchange(FREE, GONE, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return;
    }
    // SAFETY: the state moved from FREE to GONE here and never goes back,
    // so no writer touches the bytes again; the Acquire pairs with the
    // last writer's Release, so its bytes are all visible.
    let bytes = unsafe { &*BATCH.bytes.get() };
    let mut written = 0;
    let _ = write_fully(&bytes[..], &mut written);
}
