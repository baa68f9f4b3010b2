//! Writes a test makes fail, so the rollback of an all-or-nothing apply
//! can be tested (feature `fault-injection`; `xcsh-pack-test` turns it on
//! and offers it as `PackTest::fail_nth_write`).
//!
//! A fault belongs to a directory: the n-th write of a [`WriteSet`] to a
//! file under it fails with an injected "no space left on device", once.
//! Writes elsewhere (other tests running in parallel) are not affected,
//! and neither are the writes that restore files after the failure.
//!
//! [`WriteSet`]: crate::WriteSet

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The message of an injected failure.
pub const INJECTED_MESSAGE: &str = "no space left on device (injected by the test)";

struct Fault {
    id: u64,
    dir: PathBuf,
    nth: usize,
    seen: usize,
}

static FAULTS: Mutex<Vec<Fault>> = Mutex::new(Vec::new());
static ANY: AtomicBool = AtomicBool::new(false);
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

fn faults() -> MutexGuard<'static, Vec<Fault>> {
    FAULTS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes the `nth` (1-based) write to a file under `dir` fail, until the
/// returned guard drops.
pub fn fail_nth_write(dir: &Path, nth: usize) -> FaultGuard {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut faults = faults();
    faults.push(Fault {
        id,
        dir,
        nth,
        seen: 0,
    });
    ANY.store(true, Ordering::Release);
    FaultGuard { id }
}

/// Removes its fault when dropped.
#[derive(Debug)]
#[must_use = "the fault is removed when the guard drops"]
pub struct FaultGuard {
    id: u64,
}

impl Drop for FaultGuard {
    fn drop(&mut self) {
        let mut faults = faults();
        faults.retain(|fault| fault.id != self.id);
        ANY.store(!faults.is_empty(), Ordering::Release);
    }
}

/// Called before each write of a set: the injected failure, if this is
/// the write a fault chose.
pub(crate) fn check(path: &Path) -> io::Result<()> {
    if !ANY.load(Ordering::Acquire) {
        return Ok(());
    }
    let mut faults = faults();
    for fault in faults.iter_mut().filter(|f| path.starts_with(&f.dir)) {
        fault.seen += 1;
        if fault.seen == fault.nth {
            return Err(io::Error::new(io::ErrorKind::StorageFull, INJECTED_MESSAGE));
        }
    }
    Ok(())
}
