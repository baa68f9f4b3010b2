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

/// The packs the 1.1, 1.2 and 1.3 docs taught (their crate-docs example),
/// built against the current xcsh-plugin-api: 1.1's needs the changelog's
/// one-line migrations and fails without them with the error a 1.1 author
/// met; 1.2's and 1.3's build untouched. Each loads and previews, applies
/// and renames as it did.
#[test]
fn code_each_release_taught_builds_against_the_current_api_as_the_changelog_says() {
    use xcsh_test_support::{
        TAUGHT_RELEASES, build_taught, changelog_migrations, migrate, taught_pack_name,
        taught_source,
    };
    for release in TAUGHT_RELEASES {
        let source = taught_source(release);
        let migrations = changelog_migrations(release);
        let source = if *release == "1.1" {
            assert_eq!(
                migrations,
                [
                    (
                        "PendingAction::new(..)?".to_owned(),
                        "PendingAction::try_new(..)?".to_owned()
                    ),
                    (
                        "ContentBlock::Text { text }".to_owned(),
                        "ContentBlock::Text(text)".to_owned()
                    ),
                ]
            );
            let (unmigrated, _) = build_taught(release, &source, "check");
            let errors = String::from_utf8_lossy(&unmigrated.stderr);
            assert!(!unmigrated.status.success(), "1.1 code compiled unmigrated");
            assert!(
                errors.contains(
                    "the `?` operator can only be applied to values that implement `Try`"
                ),
                "{errors}"
            );
            migrate(&source, &migrations)
        } else {
            assert!(migrations.is_empty(), "{release}: {migrations:?}");
            source
        };
        let (built, library) = build_taught(release, &source, "build");
        assert!(
            built.status.success(),
            "{release}: {}",
            String::from_utf8_lossy(&built.stderr)
        );
        renames_as_taught(&library, &taught_pack_name(release));
    }
}

/// Loads the taught example pack at `path` and runs its preview and apply.
fn renames_as_taught(path: &Path, name: &str) {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "n").unwrap();
    let session = TestSession::new(dir.path(), &[path.to_path_buf()]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    assert_eq!(session.report.loaded[0].name, name);
    let preview = session.call(
        "add_prefix_preview",
        json!({"files": ["notes.txt"], "prefix": "old_"}),
    );
    assert!(!preview.is_error, "{name}: {}", preview.text());
    assert_eq!(session.pending_labels(), ["Add Prefix: 1 file(s)"]);
    assert!(
        dir.path().join("notes.txt").exists(),
        "a preview changes nothing"
    );
    assert_eq!(session.resolve("apply", "ok").text(), "Renamed 1 file(s).");
    assert!(dir.path().join("old_notes.txt").exists());
}
