//! Keeps panics on the pack's side of the boundary.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

use abi_stable::std_types::RResult;

use crate::abi::v1::FfiError;
use crate::sdk::ToolError;

/// Runs `f`; an error becomes [`FfiError::error`], a panic
/// [`FfiError::panic`]. Every v1 entry point a pack serves goes through it:
/// a Rust panic must not unwind into the host (each library has its own
/// std, and unwinding through `extern "C"` aborts).
pub fn guard<T>(f: impl FnOnce() -> Result<T, ToolError>) -> RResult<T, FfiError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(value)) => RResult::ROk(value),
        Ok(Err(error)) => RResult::RErr(FfiError::error(error.message())),
        Err(payload) => RResult::RErr(FfiError::panic(panic_message(&*payload))),
    }
}

/// Runs `f` for an entry point that cannot report errors; a panic gives
/// `fallback`.
pub(crate) fn guard_or<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "unknown panic payload".to_owned()
    }
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
}
