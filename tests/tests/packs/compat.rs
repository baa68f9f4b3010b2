//! Packs built against the first released API keep loading: a pack built
//! against the frozen copy of xcsh-plugin-api 1.0.0 (`tests/compat`) runs
//! in the current host through every v1 vtable. And its source keeps
//! compiling: the same source, untouched, built against the current
//! xcsh-plugin-api, loads and behaves the same.

use std::path::Path;

use serde_json::json;
use tempfile::TempDir;
use xcsh_core::{ToolCall, ToolContext, ToolHints, ToolOutput};
use xcsh_test_support::{
    COMPAT_SOURCE_PACK, TestSession, compat_pack_path, compat_source_pack_path,
};

#[test]
fn a_pack_built_against_the_first_release_loads_and_runs() {
    loads_and_runs(&compat_pack_path(), "compat-pack-v1");
}

#[test]
fn the_first_release_pack_source_builds_against_the_current_api_and_runs() {
    loads_and_runs(&compat_source_pack_path(), COMPAT_SOURCE_PACK);
}

/// Loads the compat pack built at `path`, checks its report and runs its
/// tool through preview, apply and discard.
fn loads_and_runs(path: &Path, name: &str) {
    let dir = TempDir::new().unwrap();
    let session = TestSession::new(dir.path(), &[path.to_path_buf()]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    assert_eq!(session.report.loaded[0].name, name);
    assert_eq!(session.report.loaded[0].version, "1.0.0");

    let tool = session
        .session
        .tools()
        .into_iter()
        .find(|t| t.name() == "compat_say_preview")
        .unwrap();
    assert_eq!(tool.label(), "Say (v1 pack)");
    assert_eq!(tool.hints(), ToolHints::PREVIEW);

    let progress = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&progress);
    let context = ToolContext::new("c1", dir.path()).with_progress(std::sync::Arc::new(
        move |p: &ToolOutput| sink.lock().unwrap().push(p.clone()),
    ));
    let preview = session.session.execute_with(
        &ToolCall::new("c1", "compat_say_preview", json!({"words": "hello"})),
        context,
    );
    assert_eq!(preview.text(), "would say hello");
    assert_eq!(*progress.lock().unwrap(), [ToolOutput::text("thinking")]);
    assert_eq!(session.pending_labels(), ["Compat: say hello"]);

    let applied = session.resolve("apply", "go");
    assert_eq!(applied.text(), "said hello (go)");
    assert_eq!(
        applied.details.unwrap()["sourceToolName"],
        "compat_say_preview"
    );

    session.call("compat_say_preview", json!({"words": "bye"}));
    assert_eq!(session.resolve("discard", "no").text(), "kept quiet");
}
