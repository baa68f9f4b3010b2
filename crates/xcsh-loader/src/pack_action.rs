//! A pack's pending action as an `xcsh-core` pending action.

use std::sync::Arc;

use abi_stable::std_types::RStr;
use xcsh_core::PendingAction;
use xcsh_plugin_api::abi::v1::CustomToolPendingActionBox;

use crate::convert;
use crate::crash::{self, Call, Origin};

/// Reads the action's label, source and details once, and wraps its apply
/// and reject. The library stays loaded for the life of the process, so the
/// vtable behind the action stays valid however long it waits.
///
/// # Errors
///
/// An empty label or invalid details JSON, as a one-line message.
pub(crate) fn adapt(
    action: CustomToolPendingActionBox,
    pack: &str,
    origin: &Arc<Origin>,
) -> Result<PendingAction, String> {
    let label = action.label().into_string();
    // What a crash report says, made printable once, here.
    let crash_label: Arc<str> = crash::printable(&label).into();
    let source = action.source_tool_name().into_option();
    let details = convert::action_details(action.details_json())?;
    let has_reject = action.has_reject();
    let action = Arc::new(action);
    let pack: Arc<str> = pack.into();

    let (applier, apply_pack) = (Arc::clone(&action), Arc::clone(&pack));
    let (apply_origin, apply_label) = (Arc::clone(origin), Arc::clone(&crash_label));
    let mut adapted = PendingAction::try_new(label, move |reason| {
        let in_pack = Call::apply(&apply_origin, &apply_label);
        let _in_pack = crash::enter(&in_pack);
        let output = applier.apply(RStr::from_str(reason));
        convert::result(output, || format!("pack {apply_pack}"))
    })
    .map_err(|e| e.to_string())?;
    if let Some(source) = source {
        adapted = adapted.with_source_tool_name(source.into_string());
    }
    if let Some(details) = details {
        adapted = adapted.with_details(details);
    }
    if has_reject {
        let origin = Arc::clone(origin);
        adapted = adapted.with_reject(move |reason| {
            let in_pack = Call::reject(&origin, &crash_label);
            let _in_pack = crash::enter(&in_pack);
            let output = action.reject(RStr::from_str(reason));
            convert::optional_result(output, || format!("pack {pack}"))
        });
    }
    Ok(adapted)
}
