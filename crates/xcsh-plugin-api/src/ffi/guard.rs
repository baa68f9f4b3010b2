//! Keeps panics on the pack's side of the boundary.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use abi_stable::std_types::RResult;

use crate::abi::v1::FfiError;
use crate::sdk::ToolError;
use xcsh_tool_types::panic_message;

thread_local! {
    /// True while this thread runs pack code under a guard.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that stays quiet for panics a guard will
/// catch and report as errors, and defers to the previous hook otherwise.
/// A pack has its own std, so in a loaded library this hook is the pack's.
fn install_quiet_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `f` with the guard flag set, restoring it after (guards nest).
fn guarded<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    install_quiet_hook();
    let outer = GUARDED.with(|g| g.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    result
}

/// Runs `f`; an error becomes [`FfiError::error`], a panic
/// [`FfiError::panic`]. Every v1 entry point a pack serves goes through it:
/// a Rust panic must not unwind into the host (each library has its own
/// std, and unwinding through `extern "C"` aborts).
pub fn guard<T>(f: impl FnOnce() -> Result<T, ToolError>) -> RResult<T, FfiError> {
    match guarded(f) {
        Ok(Ok(value)) => RResult::ROk(value),
        Ok(Err(error)) => RResult::RErr(FfiError::error(error.message())),
        Err(payload) => RResult::RErr(FfiError::panic(panic_message(&*payload))),
    }
}

/// Runs `f` for an entry point that cannot report errors; a panic gives
/// `fallback`.
pub(crate) fn guard_or<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    guarded(f).unwrap_or(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::v1::FfiErrorKind;

    #[test]
    fn ok_passes_through() {
        assert_eq!(guard(|| Ok(5)), RResult::ROk(5));
    }

    #[test]
    fn errors_keep_their_message() {
        let err = guard::<()>(|| Err("no such file".into())).unwrap_err();
        assert_eq!(err.kind, FfiErrorKind::Error);
        assert_eq!(err.message.as_str(), "no such file");
    }

    #[test]
    fn panics_become_panic_errors() {
        let err = guard::<()>(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(err.kind, FfiErrorKind::Panic);
        assert_eq!(err.message.as_str(), "boom 7");
        let err = guard::<()>(|| std::panic::panic_any(42u8)).unwrap_err();
        assert_eq!(err.message.as_str(), "unknown panic payload");
    }

    #[test]
    fn the_guard_flag_is_restored_after_nesting_and_panics() {
        let _ = guard::<()>(|| {
            let _ = guard::<()>(|| panic!("inner"));
            assert!(GUARDED.with(Cell::get), "still inside the outer guard");
            panic!("outer")
        });
        assert!(!GUARDED.with(Cell::get));
    }
}
