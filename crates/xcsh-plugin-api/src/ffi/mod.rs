//! The pack side of the boundary: adapters from the SDK to the v1 vtables,
//! panic guards, and the export machinery behind
//! [`export_tool_pack!`](crate::export_tool_pack). Not for direct use.

mod action_adapter;
mod convert;
mod export;
mod factory_adapter;
mod guard;
mod tool_adapter;

pub(crate) use action_adapter::boxed_action;
pub use export::{__config_schema, __lib_header, __lib_header_v2, __root_module, __root_module_v2};
pub use factory_adapter::{__create_tools, __create_tools_v2, FactoryFn};
pub use guard::guard;
