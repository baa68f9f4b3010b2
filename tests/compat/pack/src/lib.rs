//! A pack built against the frozen xcsh-plugin-api 1.0.0: one preview tool
//! that pushes a pending action, so the test exercises every v1 vtable
//! (factory, tool, pending action, host API, execute context).

use xcsh_plugin_api::schemars::JsonSchema;
use xcsh_plugin_api::serde::Deserialize;
use xcsh_plugin_api::{FnTool, Host, PendingAction, ToolError, ToolHints, ToolOutput, ToolPack};

/// What to say.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "xcsh_plugin_api::serde")]
#[schemars(crate = "xcsh_plugin_api::schemars")]
struct Say {
    /// The words.
    words: String,
}

fn tools(_host: &Host) -> Result<ToolPack, ToolError> {
    Ok(ToolPack::new().with_tool(
        FnTool::new(
            "compat_say_preview",
            "Say (v1 pack)",
            "Previews saying something; resolve says it.",
            |p: Say, ctx| {
                ctx.report_progress(ToolOutput::text("thinking"));
                let words = p.words.clone();
                ctx.push_pending_action(
                    PendingAction::new(format!("Compat: say {}", p.words), move |reason| {
                        Ok(ToolOutput::text(format!("said {words} ({reason})")))
                    })
                    .with_source_tool_name("compat_say_preview")
                    .with_reject(|_| Ok(Some(ToolOutput::text("kept quiet")))),
                )?;
                Ok(ToolOutput::text(format!("would say {}", p.words)))
            },
        )
        .with_hints(ToolHints::PREVIEW),
    ))
}

xcsh_plugin_api::export_tool_pack!(tools);
