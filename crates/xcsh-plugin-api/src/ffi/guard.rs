//! Keeps panics on the pack's side of the boundary.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use abi_stable::std_types::RResult;

use crate::abi::v1::FfiError;
use crate::sdk::ToolError;
use xcsh_tool_types::panic_message;

thread_local! {
    /// True while this thread runs pack code under a guard.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic a guard will catch on this thread happened
    /// (`file:line:column`), noted by the quiet hook.
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that stays quiet for panics a guard will
/// catch and report as errors, noting where they happened, and defers to
/// the previous hook otherwise. A pack has its own std, so in a loaded
/// library this hook is the pack's.
fn install_quiet_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) {
                let location = info
                    .location()
                    .map(|at| format!("{}:{}:{}", at.file(), at.line(), at.column()));
                LOCATION.with(|noted| *noted.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

/// A caught panic: its payload and where it happened, when the hook saw it.
type Caught = (Box<dyn std::any::Any + Send>, Option<String>);

/// Runs `f` with the guard flag set, restoring it after (guards nest).
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Caught> {
    install_quiet_hook();
    let outer = GUARDED.with(|g| g.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    result.map_err(|payload| (payload, LOCATION.with(|noted| noted.borrow_mut().take())))
}

/// A caught panic's one-line message: its payload's message and, when
/// known, where it happened, as `{message} (at {file}:{line}:{column})`.
fn describe_panic(payload: &(dyn std::any::Any + Send), location: Option<String>) -> String {
    let message = panic_message(payload);
    match location {
        Some(at) => format!("{message} (at {at})"),
        None => message,
    }
}

/// Runs `f`; an error becomes [`FfiError::error`], a panic
/// [`FfiError::panic`] whose message ends with where it happened
/// (`boom (at src/lib.rs:12:9)`). Every v1 entry point a pack serves goes
/// through it: a Rust panic must not unwind into the host (each library
/// has its own std, and unwinding through `extern "C"` aborts).
pub fn guard<T>(f: impl FnOnce() -> Result<T, ToolError>) -> RResult<T, FfiError> {
    match guarded(f) {
        Ok(Ok(value)) => RResult::ROk(value),
        Ok(Err(error)) => RResult::RErr(FfiError::error(error.message())),
        Err((payload, location)) => {
            RResult::RErr(FfiError::panic(describe_panic(&*payload, location)))
        }
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
    fn panics_become_panic_errors_naming_where_they_happened() {
        let line = line!() + 1;
        let err = guard::<()>(|| panic!("boom {}", 7)).unwrap_err();
        assert_eq!(err.kind, FfiErrorKind::Panic);
        assert_eq!(
            err.message.as_str(),
            format!("boom 7 (at {}:{line}:34)", file!())
        );
        let line = line!() + 1;
        let err = guard::<()>(|| std::panic::panic_any(42u8)).unwrap_err();
        assert_eq!(
            err.message.as_str(),
            format!("unknown panic payload (at {}:{line}:34)", file!())
        );
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
