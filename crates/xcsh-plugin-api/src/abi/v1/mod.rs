//! ABI version 1 (frozen). See the [parent module](crate::abi) for the
//! growth rules.

mod error;
mod execute_context;
mod factory;
mod host_api;
mod output;
mod pending_action;
mod root;
mod tool;

pub use error::{FfiError, FfiErrorKind};
pub use execute_context::{ExecuteContext, ExecuteContext_TO, ExecuteContextRef};
pub use factory::{CustomToolFactory, CustomToolFactoryRef};
pub use host_api::{CustomToolApi, CustomToolApi_TO, CustomToolApiHandle, FfiLogLevel};
pub use output::{FfiContentBlock, FfiToolHints, FfiToolOutput};
pub use pending_action::{
    CustomToolPendingAction, CustomToolPendingAction_TO, CustomToolPendingActionBox,
};
pub use root::{ABI_VERSION, ToolPackModule, ToolPackModuleRef};
pub use tool::{CustomTool, CustomTool_TO, CustomToolBox};
