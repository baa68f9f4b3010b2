//! The SDK's values are the agent's own (`xcsh-tool-types`, re-exported by
//! `xcsh-core` too): what a pack builds is checked by the rules the host
//! applies, and a pack's unit test can apply its action directly.

use xcsh_plugin_api::prelude::*;
use xcsh_plugin_api::{PendingActionError, serde_json};

#[test]
fn a_blank_label_is_refused_where_the_action_is_built_with_the_hosts_message() {
    for label in ["", "  ", "\n"] {
        let refused = PendingAction::try_new(label, |_| Ok(ToolOutput::empty())).unwrap_err();
        assert_eq!(refused, PendingActionError::EmptyLabel);
        let error: ToolError = refused.into();
        assert_eq!(error.message(), "pending action label must not be empty");
        // The 1.0.0 constructor builds it; the push refuses it (`check`).
        let built = PendingAction::new(label, |_| Ok(ToolOutput::empty()));
        assert_eq!(built.check(), Err(PendingActionError::EmptyLabel));
    }
}

#[test]
fn a_pack_test_can_apply_and_reject_its_action_directly() {
    let action = PendingAction::new("Tidy: 1 file", |reason| {
        Ok(ToolOutput::text(format!("tidied ({reason})")))
    })
    .with_reject(|_| Ok(Some(ToolOutput::text("left as it was"))));
    assert_eq!(action.source_tool_name(), "custom_tool");
    assert_eq!(action.apply("ok").unwrap(), ToolOutput::text("tidied (ok)"));
    assert_eq!(
        action.reject("no").unwrap().unwrap(),
        Some(ToolOutput::text("left as it was"))
    );
}

#[test]
fn content_blocks_have_the_hosts_shape() {
    let output = ToolOutput::text("hi").with_block(ContentBlock::image("AA==", "image/png"));
    assert_eq!(output.content[0], ContentBlock::Text("hi".to_owned()));
    assert_eq!(
        serde_json::to_value(&output).unwrap(),
        json!({"content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"}
        ]})
    );
}

#[test]
fn log_levels_are_plain_values_ordered_by_severity() {
    assert!(LogLevel::Trace < LogLevel::Debug && LogLevel::Warn < LogLevel::Error);
}
