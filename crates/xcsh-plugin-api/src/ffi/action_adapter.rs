//! An SDK pending action behind the `CustomToolPendingAction` vtable.

use abi_stable::sabi_trait::TD_Opaque;
use abi_stable::std_types::{ROption, RResult, RStr, RString};

use super::guard::{guard, guard_or};
use crate::abi::v1::{
    CustomToolPendingAction, CustomToolPendingAction_TO, CustomToolPendingActionBox, FfiError,
    FfiToolOutput,
};
use crate::sdk::PendingAction;

struct ActionAdapter(PendingAction);

/// Boxes `action` for the host.
pub(crate) fn boxed_action(action: PendingAction) -> CustomToolPendingActionBox {
    CustomToolPendingAction_TO::from_value(ActionAdapter(action), TD_Opaque)
}

impl CustomToolPendingAction for ActionAdapter {
    fn label(&self) -> RString {
        guard_or(RString::new(), || self.0.label().into())
    }

    fn source_tool_name(&self) -> ROption<RString> {
        guard_or(ROption::RNone, || {
            ROption::RSome(self.0.source_tool_name().into())
        })
    }

    fn details_json(&self) -> ROption<RString> {
        guard_or(ROption::RNone, || {
            self.0
                .details()
                .map(|d| RString::from(d.to_string()))
                .into()
        })
    }

    fn apply(&self, reason: RStr<'_>) -> RResult<FfiToolOutput, FfiError> {
        guard(|| self.0.apply(reason.as_str()).map(Into::into))
    }

    fn has_reject(&self) -> bool {
        self.0.has_reject()
    }

    fn reject(&self, reason: RStr<'_>) -> RResult<ROption<FfiToolOutput>, FfiError> {
        guard(|| match self.0.reject(reason.as_str()) {
            Some(rejected) => rejected.map(|o| o.map(Into::into).into()),
            None => Ok(ROption::RNone),
        })
    }
}
