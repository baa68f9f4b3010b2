//! Every type that crosses threads on either side of the boundary is
//! `Send + Sync`: hosts call tools from worker threads, and packs push from
//! threads of their own.

use xcsh_plugin_api::abi::v1::{
    CustomToolApiHandle, CustomToolBox, CustomToolPendingActionBox, FfiError, FfiToolHints,
    FfiToolOutput, ToolPackModuleRef,
};
use xcsh_plugin_api::{Host, PendingAction, ToolError, ToolHints, ToolOutput, ToolPack};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn abi_types_are_send_and_sync() {
    assert_send_sync::<CustomToolApiHandle>();
    assert_send_sync::<CustomToolBox>();
    assert_send_sync::<CustomToolPendingActionBox>();
    assert_send_sync::<FfiError>();
    assert_send_sync::<FfiToolOutput>();
    assert_send_sync::<FfiToolHints>();
    assert_send_sync::<ToolPackModuleRef>();
}

#[test]
fn sdk_types_are_send_and_sync() {
    assert_send_sync::<Host>();
    assert_send_sync::<PendingAction>();
    assert_send_sync::<ToolPack>();
    assert_send_sync::<ToolOutput>();
    assert_send_sync::<ToolError>();
    assert_send_sync::<ToolHints>();
}
