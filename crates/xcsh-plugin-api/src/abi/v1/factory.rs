//! The factory that makes a pack's tools for one session.

use abi_stable::StableAbi;
use abi_stable::std_types::{RResult, RVec};

use super::{CustomToolApiHandle, CustomToolBox, FfiError};

/// The `CustomToolFactory` vtable: called once per session with an API bound
/// to that session's store.
#[repr(C)]
#[derive(StableAbi, Debug)]
#[sabi(kind(Prefix(prefix_ref = CustomToolFactoryRef)))]
#[sabi(missing_field(panic))]
pub struct CustomToolFactory {
    /// Makes the pack's tools. End of the frozen v1 prefix.
    #[sabi(last_prefix_field)]
    pub create_tools:
        extern "C" fn(api: CustomToolApiHandle) -> RResult<RVec<CustomToolBox>, FfiError>,
}
