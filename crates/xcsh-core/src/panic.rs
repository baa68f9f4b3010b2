//! Running code that may panic.

use xcsh_tool_types::panic_message;

/// Runs `f`, turning a panic into `Err(message)`.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| panic_message(&*p))
}
