//! What the host lends a tool for the duration of one call.
#![allow(non_local_definitions, missing_docs)]

use abi_stable::sabi_trait;
use abi_stable::sabi_types::RRef;
use abi_stable::std_types::RString;

use super::FfiToolOutput;

/// The host side of one running call: working directory, progress sink,
/// cancellation flag. Borrowed for the call only.
#[sabi_trait]
pub trait ExecuteContext {
    /// The session's working directory.
    fn cwd(&self) -> RString;

    /// Forwards a partial result to whoever watches the call.
    fn report_progress(&self, partial: FfiToolOutput);

    /// True once the host aborted the call. End of the frozen v1 prefix.
    #[sabi(last_prefix_field)]
    fn is_cancelled(&self) -> bool;
}

/// A borrowed execute context.
pub type ExecuteContextRef<'a> = ExecuteContext_TO<'a, RRef<'a, ()>>;
