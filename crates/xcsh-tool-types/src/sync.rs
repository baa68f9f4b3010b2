//! Locks that ignore poison.
//!
//! A lock is poisoned when code panicked while holding it. Where every
//! critical section leaves the data consistent (and no tool or pack code
//! runs under the lock), the poison carries no information, and a later
//! caller should go on rather than panic in turn: these helpers take the
//! guard either way.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `mutex`, ignoring poison.
///
/// ```
/// use std::sync::Mutex;
/// let counter = Mutex::new(0);
/// let _ = std::panic::catch_unwind(|| {
///     let _guard = counter.lock().unwrap();
///     panic!("poisons the lock");
/// });
/// *xcsh_tool_types::sync::lock(&counter) += 1;
/// assert_eq!(*xcsh_tool_types::sync::lock(&counter), 1);
/// ```
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Read-locks `lock`, ignoring poison.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Write-locks `lock`, ignoring poison.
pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::{Mutex, RwLock};

    use super::*;

    #[test]
    fn poisoned_locks_still_lock() {
        let mutex = Mutex::new(1);
        let rw = RwLock::new(1);
        let _ = std::panic::catch_unwind(|| {
            let _m = mutex.lock().unwrap();
            let _w = rw.write().unwrap();
            panic!("poison both");
        });
        assert!(mutex.is_poisoned() && rw.is_poisoned());
        *lock(&mutex) += 1;
        *write(&rw) += 1;
        assert_eq!((*lock(&mutex), *read(&rw)), (2, 2));
    }
}
