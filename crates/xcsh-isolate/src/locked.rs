//! Taking a mutex whose holder may have panicked: every lock in this crate
//! guards state that stays whole across a panic (a map, a pipe, a
//! counter), so a poisoned lock is taken as it is.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, poisoned or not.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
