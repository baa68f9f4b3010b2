//! The harness runs packs through the real host path: what the agent would
//! refuse, report or keep, it refuses, reports or keeps too.

use std::sync::atomic::{AtomicUsize, Ordering};

use xcsh_pack_test::{PackTest, PackTestError, PendingInfo, SESSION_ENDED, ToolChoice, json};
use xcsh_plugin_api::prelude::*;

/// Rejects seen by the `lifecycle` pack, across tests in this binary.
static REJECTS: AtomicUsize = AtomicUsize::new(0);

#[params]
struct Label {
    /// The pending action's label.
    label: String,
    /// Fail after pushing.
    #[serde(default)]
    fail: bool,
}

/// Arguments of `steps`. This doc comment must not reach the model.
#[params]
struct Steps {
    /// How many steps (wrapped like a long doc comment: the model reads
    /// one line).
    count: u32,
}

fn lifecycle(_host: &Host) -> Result<ToolPack, ToolError> {
    let push = FnTool::new(
        "push",
        "Push",
        "Pushes an action labelled `label`.",
        |p: Label, ctx: &ToolContext<'_>| {
            let label = p.label.clone();
            ctx.push_pending_action(
                PendingAction::new(p.label, move |reason| {
                    Ok(ToolOutput::text(format!("applied {label} ({reason})")))
                })
                .with_source_tool_name("push")
                .with_details(json!({"n": 1}))
                .with_reject(|_| {
                    REJECTS.fetch_add(1, Ordering::SeqCst);
                    Ok(None)
                }),
            )?;
            if p.fail {
                return Err(ToolError::new("failed after pushing"));
            }
            Ok(ToolOutput::text("pushed"))
        },
    )
    .with_hints(ToolHints::PREVIEW);
    let steps = FnTool::new(
        "steps",
        "Steps",
        "Reports progress.",
        |p: Steps, ctx: &ToolContext<'_>| {
            for step in 1..=p.count {
                ctx.report_progress(ToolOutput::text(format!("step {step}")));
            }
            Ok(ToolOutput::text("done"))
        },
    )
    .with_hints(ToolHints::READ_ONLY);
    let boom = FnTool::new(
        "boom",
        "Boom",
        "Panics.",
        |_: NoParams, _: &ToolContext<'_>| panic!("kaboom"),
    );
    Ok(ToolPack::new()
        .with_tool(push)
        .with_tool(steps)
        .with_tool(boom))
}

fn failing(_host: &Host) -> Result<ToolPack, ToolError> {
    Err(ToolError::new("no config"))
}

fn empty(_host: &Host) -> Result<ToolPack, ToolError> {
    Ok(ToolPack::new())
}

fn taken_name(_host: &Host) -> Result<ToolPack, ToolError> {
    let resolve = FnTool::new(
        "resolve",
        "Mine",
        "Clashes.",
        |_: NoParams, _: &ToolContext<'_>| Ok(ToolOutput::empty()),
    );
    Ok(ToolPack::new().with_tool(resolve))
}

fn pack() -> PackTest {
    PackTest::new("lifecycle", lifecycle).unwrap()
}

#[test]
fn a_failing_factory_is_reported_as_the_loader_reports_it() {
    let error = PackTest::new("failing", failing).unwrap_err();
    assert_eq!(error.to_string(), "tool pack failing did not load");
    let cause = std::error::Error::source(&error).unwrap().to_string();
    assert!(cause.contains("no config"), "{cause}");
    assert!(matches!(
        PackTest::new("empty", empty).unwrap_err(),
        PackTestError::Load { .. }
    ));
    let error = PackTest::new("taken", taken_name).unwrap_err();
    assert_eq!(
        error.to_string(),
        "a tool of pack taken cannot be registered"
    );
    assert_eq!(
        std::error::Error::source(&error).unwrap().to_string(),
        "Tool name \"resolve\" conflicts with existing tool"
    );
}

#[test]
fn a_push_queues_a_reminder_and_forces_resolve() {
    let pack = pack();
    assert_eq!(pack.tool_choice(), ToolChoice::Auto);
    assert!(!pack.offered_tools().contains(&"resolve".to_owned()));
    assert_eq!(pack.call("push", json!({"label": "One"})).text(), "pushed");
    assert_eq!(pack.call("push", json!({"label": "Two"})).text(), "pushed");
    assert_eq!(pack.pending_labels(), ["Two", "One"]);
    assert_eq!(pack.take_reminders().len(), 2, "one reminder per push");
    assert!(pack.take_reminders().is_empty());
    assert_eq!(
        pack.tool_choice(),
        ToolChoice::Tool {
            name: "resolve".into()
        }
    );
    assert!(pack.offered_tools().contains(&"resolve".to_owned()));
    let newest = pack.newest_pending().unwrap();
    assert_eq!(newest.source_tool_name, "push");
    assert_eq!(newest.details, Some(json!({"n": 1})));
    assert_eq!(pack.apply("yes").text(), "applied Two (yes)");
    assert_eq!(pack.pending_labels(), ["One"]);
}

#[test]
fn a_tool_that_errors_after_pushing_leaves_its_action_pending() {
    let pack = pack();
    let result = pack.call("push", json!({"label": "Kept", "fail": true}));
    assert!(result.is_error);
    assert_eq!(result.text(), "failed after pushing");
    assert_eq!(pack.pending_labels(), ["Kept"]);
}

#[test]
fn pending_lists_every_action_newest_first_with_its_source_and_details() {
    let pack = pack();
    pack.call("push", json!({"label": "One"}));
    pack.call("push", json!({"label": "Two"}));
    let info = |label: &str| PendingInfo {
        label: label.to_owned(),
        source_tool_name: "push".to_owned(),
        details: Some(json!({"n": 1})),
    };
    assert_eq!(pack.pending(), [info("Two"), info("One")]);
    assert_eq!(pack.newest_pending(), Some(info("Two")));
    pack.discard("not now");
    assert_eq!(pack.pending(), [info("One")]);
}

#[test]
fn a_blank_label_is_refused_by_the_push_with_the_hosts_message() {
    let pack = pack();
    let result = pack.call("push", json!({"label": "  "}));
    assert!(result.is_error);
    assert_eq!(result.text(), "pending action label must not be empty");
    assert!(pack.pending_labels().is_empty());
}

#[test]
fn a_panic_is_an_error_result_and_the_session_goes_on() {
    let pack = pack();
    let result = pack.call("boom", json!({}));
    assert!(result.is_error);
    // The message names where the pack panicked: file, line and column.
    assert_eq!(
        result.text(),
        format!(
            "Tool boom panicked: kaboom (at {})",
            site(file!(), "panic!(\"kaboom\")")
        )
    );
    assert_eq!(
        pack.call("push", json!({"label": "After"})).text(),
        "pushed"
    );
}

#[test]
fn discard_and_the_end_of_the_session_run_reject() {
    let before = REJECTS.load(Ordering::SeqCst);
    let pack = pack();
    for label in ["A", "B", "C"] {
        pack.call("push", json!({"label": label}));
    }
    let discarded = pack.discard("not now");
    assert_eq!(discarded.text(), "Discarded: C. Reason: not now");
    assert_eq!(pack.end(), 2);
    assert!(pack.pending_labels().is_empty());
    assert!(REJECTS.load(Ordering::SeqCst) >= before + 3);
    assert_eq!(SESSION_ENDED, "session ended without resolve");
}

#[test]
fn progress_reports_are_recorded_in_order() {
    let pack = pack();
    assert_eq!(pack.call("steps", json!({"count": 2})).text(), "done");
    let texts: Vec<_> = pack
        .progress()
        .iter()
        .map(|p| format!("{:?}", p.content))
        .collect();
    assert_eq!(texts.len(), 2);
    assert!(texts[1].contains("step 2"), "{texts:?}");
}

#[test]
fn arguments_are_validated_against_the_tidied_schema() {
    let pack = pack();
    let steps = pack
        .tools()
        .into_iter()
        .find(|t| t.name() == "steps")
        .unwrap();
    assert_eq!(
        *steps.parameters(),
        json!({
            "type": "object",
            "properties": {"count": {"type": "integer", "format": "uint32", "minimum": 0, "description": "How many steps (wrapped like a long doc comment: the model reads one line)."}},
            "required": ["count"],
            "additionalProperties": false
        })
    );
    let refused = pack.call("steps", json!({"count": -1}));
    assert!(refused.is_error);
    assert!(
        refused
            .text()
            .starts_with("Invalid arguments for steps: /count: "),
        "{}",
        refused.text()
    );
    let refused = pack.call("boom", json!({"x": 1}));
    assert_eq!(
        refused.text(),
        "Invalid arguments for boom: Additional properties are not allowed ('x' was unexpected)"
    );
    assert_eq!(pack.call("nope", json!({})).text(), "Unknown tool: nope");
}

/// Arguments of `nested`: a list and a nested struct.
#[params]
struct Nested {
    /// The files.
    files: Vec<String>,
    /// How deep.
    options: Depth,
}

/// How deep `nested` goes.
#[params]
struct Depth {
    /// The depth.
    depth: u32,
}

fn nested(_host: &Host) -> Result<ToolPack, ToolError> {
    Ok(ToolPack::new().with_tool(FnTool::new(
        "my_tool",
        "My Tool",
        "Takes nested arguments.",
        |p: Nested, _ctx: &ToolContext<'_>| {
            Ok(ToolOutput::text(format!(
                "{} file(s), depth {}",
                p.files.len(),
                p.options.depth
            )))
        },
    )))
}

/// The guide's examples of a refused call, word for word: a missing or an
/// unknown field by name, an error inside a field (nested too) from its
/// JSON pointer.
#[test]
fn an_error_inside_a_nested_field_starts_with_its_json_pointer() {
    let pack = PackTest::new("nested", nested).unwrap();
    assert_eq!(
        pack.call("my_tool", json!({"options": {"depth": 1}}))
            .text(),
        "Invalid arguments for my_tool: \"files\" is a required property"
    );
    assert_eq!(
        pack.call(
            "my_tool",
            json!({"files": [], "flies": [], "options": {"depth": 1}})
        )
        .text(),
        "Invalid arguments for my_tool: Additional properties are not allowed ('flies' was unexpected)"
    );
    assert_eq!(
        pack.call(
            "my_tool",
            json!({"files": [], "options": {"depth": "deep"}})
        )
        .text(),
        "Invalid arguments for my_tool: /options/depth: \"deep\" is not of type \"integer\""
    );
    assert_eq!(
        pack.call("my_tool", json!({"files": ["a"], "options": {"depth": 2}}))
            .text(),
        "1 file(s), depth 2"
    );
}

#[test]
fn hints_reach_the_host() {
    let pack = pack();
    let push = pack
        .tools()
        .into_iter()
        .find(|t| t.name() == "push")
        .unwrap();
    assert_eq!(push.hints().read_only, Some(true));
    assert_eq!(push.hints().destructive, Some(false));
    // The harness names the trait its `tools()` hands out.
    let tools: Vec<std::sync::Arc<dyn xcsh_pack_test::HostTool>> = pack.tools();
    let steps = tools.iter().find(|t| t.name() == "steps").unwrap();
    assert_eq!(steps.hints(), ToolHints::READ_ONLY);
    assert_eq!(steps.hints().idempotent, Some(true));
}

/// `file:line:column` of the first `needle` in the source file `file`
/// (as `file!()` names it, relative to the workspace root).
fn site(file: &str, needle: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap();
    let source = std::fs::read_to_string(root.join(file)).unwrap();
    let (line, text) = source
        .lines()
        .enumerate()
        .find(|(_, text)| text.contains(needle))
        .unwrap();
    format!("{file}:{}:{}", line + 1, text.find(needle).unwrap() + 1)
}
