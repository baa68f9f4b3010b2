//! The factory of a version 2 pack.

use abi_stable::StableAbi;
use abi_stable::std_types::{RResult, RVec};

use super::CustomToolApiV2Handle;
use crate::abi::v1::{CustomToolBox, FfiError};

/// What a version 2 pack exports to make its tools.
#[repr(C)]
#[derive(StableAbi, Debug)]
#[sabi(kind(Prefix(prefix_ref = CustomToolFactoryV2Ref)))]
#[sabi(missing_field(panic))]
pub struct CustomToolFactoryV2 {
    /// Makes the pack's tools for the session behind `api`.
    #[sabi(last_prefix_field)]
    pub create_tools:
        extern "C" fn(api: CustomToolApiV2Handle) -> RResult<RVec<CustomToolBox>, FfiError>,
}
