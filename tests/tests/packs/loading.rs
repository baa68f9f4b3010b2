//! Loading packs side by side: conflicts, duplicates, reports.

use std::fs;

use serde_json::json;
use tempfile::TempDir;
use xcsh_loader::PackLibrary;
use xcsh_test_support::{TestSession, pack_path};

#[test]
fn first_pack_wins_a_name_conflict_and_the_rest_of_the_loser_loads() {
    let dir = TempDir::new().unwrap();
    let (a, b) = (
        pack_path("fixture-conflict-a"),
        pack_path("fixture-conflict-b"),
    );
    let session = TestSession::new(dir.path(), &[a, b.clone()]);
    assert_eq!(
        session.problems(),
        ["Tool name \"shared_name\" conflicts with existing tool"]
    );
    assert_eq!(session.report.conflicts[0].path, b);
    assert_eq!(
        session.call("shared_name", json!({})).text(),
        "from conflict-a"
    );
    assert_eq!(session.call("only_in_b", json!({})).text(), "only in b");
    assert_eq!(session.report.loaded[1].tools, ["only_in_b"]);
}

#[test]
fn builtins_win_over_packs() {
    let dir = TempDir::new().unwrap();
    let session = xcsh_core::Session::new(dir.path());
    // `resolve` is the session's own; a pack cannot take it, nor anything
    // registered before the packs load.
    session
        .register_tool(std::sync::Arc::new(
            PackLibrary::open(&pack_path("fixture-conflict-a"))
                .unwrap()
                .create_tools(&xcsh_loader::HostBinding::for_session(&session))
                .unwrap()
                .remove(0),
        ))
        .unwrap();
    let report = xcsh_loader::load_packs(&session, &[pack_path("fixture-conflict-b")]);
    assert_eq!(
        report.problems(),
        ["Tool name \"shared_name\" conflicts with existing tool"]
    );
}

#[test]
fn the_same_file_twice_loads_once() {
    let dir = TempDir::new().unwrap();
    let path = pack_path("batch-rename");
    let session = TestSession::new(dir.path(), &[path.clone(), path]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    assert_eq!(session.report.loaded.len(), 1);
}

#[test]
fn copies_of_a_pack_load_side_by_side_in_separate_sessions() {
    // Distinct files of the same pack are distinct libraries; each session
    // gets its own tools bound to its own store.
    let dir = TempDir::new().unwrap();
    let copies: Vec<_> = (0..3)
        .map(|i| {
            let copy = dir.path().join(format!("libcopy{i}.so"));
            fs::copy(pack_path("batch-rename"), &copy).unwrap();
            copy
        })
        .collect();
    let work = TempDir::new().unwrap();
    fs::write(work.path().join("f.txt"), "").unwrap();
    let sessions: Vec<TestSession> = copies
        .iter()
        .map(|copy| TestSession::new(work.path(), std::slice::from_ref(copy)))
        .collect();
    for session in &sessions {
        assert!(session.report.is_clean(), "{:?}", session.problems());
    }
    sessions[1].call(
        "batch_rename_preview",
        json!({"files": ["f.txt"], "rule": {"kind": "prefix", "prefix": "x"}}),
    );
    let pending: Vec<usize> = sessions.iter().map(|s| s.session.store().len()).collect();
    assert_eq!(
        pending,
        [0, 1, 0],
        "the push landed in the owning session only"
    );
}

#[test]
fn a_library_is_opened_once_per_process() {
    let first = PackLibrary::open(&pack_path("batch-rename")).unwrap();
    let second = PackLibrary::open(&pack_path("batch-rename")).unwrap();
    assert!(std::ptr::eq(first, second));
    assert_eq!(first.name(), "batch-rename");
    assert_eq!(first.version(), "0.1.0");
}

#[test]
fn tool_hints_cross_the_boundary() {
    let dir = TempDir::new().unwrap();
    let session = TestSession::new(
        dir.path(),
        &[pack_path("batch-rename"), pack_path("fixture-raw-abi")],
    );
    let hints = |name: &str| {
        session
            .session
            .tools()
            .into_iter()
            .find(|t| t.name() == name)
            .unwrap()
            .hints()
    };
    assert_eq!(hints("batch_rename_preview"), xcsh_core::ToolHints::PREVIEW);
    assert_eq!(hints("raw_bad_details"), xcsh_core::ToolHints::default());
    assert_eq!(hints("resolve").destructive, Some(true));
}
