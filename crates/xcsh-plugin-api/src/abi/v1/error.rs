//! The error every fallible v1 entry point returns.

use abi_stable::StableAbi;
use abi_stable::std_types::RString;

/// Whether pack code reported an error or panicked.
#[repr(u8)]
#[derive(StableAbi, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FfiErrorKind {
    /// The code returned an error.
    Error,
    /// The code panicked; the pack caught it at the boundary.
    Panic,
}

/// An error crossing the boundary: its kind and a one-line message.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub struct FfiError {
    /// Error or panic.
    pub kind: FfiErrorKind,
    /// The message (for a panic, the panic message).
    pub message: RString,
}

impl FfiError {
    /// An ordinary error.
    pub fn error(message: impl Into<RString>) -> Self {
        Self {
            kind: FfiErrorKind::Error,
            message: message.into(),
        }
    }

    /// A caught panic.
    pub fn panic(message: impl Into<RString>) -> Self {
        Self {
            kind: FfiErrorKind::Panic,
            message: message.into(),
        }
    }
}
