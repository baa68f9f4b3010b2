//! Tool output as it crosses the boundary.

use abi_stable::StableAbi;
use abi_stable::std_types::{ROption, RString, RVec};

/// A tool's hints about its effects; `RNone` means not stated.
#[repr(C)]
#[derive(StableAbi, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FfiToolHints {
    /// Changes nothing.
    pub read_only: ROption<bool>,
    /// May destroy or overwrite data.
    pub destructive: ROption<bool>,
    /// Repeating a call has no further effect.
    pub idempotent: ROption<bool>,
    /// Reaches outside the working directory.
    pub open_world: ROption<bool>,
}

/// One content block.
#[repr(u8)]
#[derive(StableAbi, Clone, Debug, PartialEq, Eq)]
pub enum FfiContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: RString,
    },
    /// A base64-encoded image.
    Image {
        /// Base64 data.
        data: RString,
        /// MIME type, e.g. `image/png`.
        mime_type: RString,
    },
}

/// Content blocks plus optional details as JSON text.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq, Eq)]
pub struct FfiToolOutput {
    /// Content blocks, in order.
    pub content: RVec<FfiContentBlock>,
    /// Structured details, serialised JSON.
    pub details_json: ROption<RString>,
}
