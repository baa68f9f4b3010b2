//! Misbehaving packs: each yields its one-line report entry or error result
//! while the good packs and the session keep working.

use std::fs;
use std::path::PathBuf;

use serde_json::json;
use tempfile::TempDir;
use xcsh_test_support::{TestSession, pack_path, panic_site};

/// Where the faulty-tools fixture's `panic!("{what}")` is.
fn faulty_site(what: &str) -> String {
    panic_site(
        "plugins/fixtures/faulty-tools/src/lib.rs",
        &format!("panic!(\"{what}\")"),
    )
}

/// A session with the batch-rename pack loaded first, then `bad`.
fn with_good_pack(dir: &TempDir, bad: PathBuf) -> TestSession {
    TestSession::new(dir.path(), &[pack_path("batch-rename"), bad])
}

/// The good pack still previews and resolves.
fn assert_good_pack_works(session: &TestSession, dir: &TempDir) {
    fs::write(dir.path().join("keep.txt"), "").unwrap();
    let preview = session.call(
        "batch_rename_preview",
        json!({"files": ["keep.txt"], "rule": {"kind": "prefix", "prefix": "ok_"}}),
    );
    assert!(!preview.is_error, "{}", preview.text());
    let applied = session.resolve("apply", "still works");
    assert!(!applied.is_error, "{}", applied.text());
    assert!(dir.path().join("ok_keep.txt").exists());
}

fn single_problem(session: &TestSession) -> String {
    let problems = session.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let line = problems[0].clone();
    assert!(!line.contains('\n'), "one line: {line}");
    line
}

#[test]
fn a_panicking_factory_is_reported_and_the_rest_load() {
    let dir = TempDir::new().unwrap();
    let bad = pack_path("fixture-panic-factory");
    let session = with_good_pack(&dir, bad.clone());
    assert_eq!(
        single_problem(&session),
        format!(
            "Failed to load tool pack {}: factory panicked: factory exploded on purpose (at {})",
            bad.display(),
            panic_site(
                "plugins/fixtures/panic-factory/src/lib.rs",
                "panic!(\"factory exploded on purpose\")"
            )
        )
    );
    assert_good_pack_works(&session, &dir);
}

#[test]
fn an_incompatible_api_version_is_refused_by_its_declared_version() {
    let dir = TempDir::new().unwrap();
    let bad = pack_path("fixture-abi-future");
    let session = with_good_pack(&dir, bad.clone());
    assert_eq!(
        single_problem(&session),
        format!(
            "Failed to load tool pack {}: incompatible API version: the pack declares ABI 9.0.0, \
             newer than this xcsh loads (ABI 2.x, 1.x): update xcsh, or rebuild the pack against \
             xcsh-plugin-api {} (what this xcsh was built with)",
            bad.display(),
            sdk_series()
        )
    );
    assert_good_pack_works(&session, &dir);
}

#[test]
fn a_layout_mismatch_is_summarised_to_one_line() {
    let dir = TempDir::new().unwrap();
    let bad = pack_path("fixture-layout-mismatch");
    let session = with_good_pack(&dir, bad.clone());
    // Its root module is a type of its own crate, not xcsh-plugin-api's:
    // the line says so and what to do, not abi_stable's layout dump.
    assert_eq!(
        single_problem(&session),
        format!(
            "Failed to load tool pack {}: ABI mismatch: the pack's root module comes from the \
             crate fixture-layout-mismatch, not xcsh-plugin-api: export it with \
             xcsh_plugin_api::export_tool_pack! and rebuild",
            bad.display()
        )
    );
    assert_good_pack_works(&session, &dir);
}

/// `major.minor` of the xcsh-plugin-api this workspace builds.
fn sdk_series() -> String {
    let manifest = include_str!("../../../crates/xcsh-plugin-api/Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap();
    version.rsplit_once('.').unwrap().0.to_owned()
}

#[test]
fn an_rlib_is_refused_saying_how_to_build_a_cdylib() {
    // batch-rename builds as ["cdylib", "rlib"]: its rlib is a real one.
    let library = pack_path("batch-rename");
    let rlib = library.with_file_name("libbatch_rename.rlib");
    let dir = TempDir::new().unwrap();
    let copy = dir.path().join("libmy_pack.rlib");
    fs::copy(&rlib, &copy).unwrap();
    let session = with_good_pack(&dir, copy.clone());
    assert_eq!(
        single_problem(&session),
        format!(
            "Failed to load tool pack {}: not a shared library: libmy_pack.rlib is a static \
             library (an rlib); add crate-type = [\"cdylib\", \"rlib\"] under [lib] in the \
             pack's Cargo.toml, rebuild, and load {}",
            copy.display(),
            xcsh_loader::discover::pack_file_name("my_pack")
        )
    );
    assert_good_pack_works(&session, &dir);
}

#[test]
fn a_library_that_is_not_a_pack_is_named_as_such() {
    let dir = TempDir::new().unwrap();
    let bad = pack_path("fixture-not-a-pack");
    let session = with_good_pack(&dir, bad.clone());
    assert_eq!(
        single_problem(&session),
        format!(
            "Failed to load tool pack {}: not an xcsh tool pack: no root module (symbol _1as_0lib_1header_0root_bmodule_bloader); add xcsh_plugin_api::export_tool_pack!(your_factory); to the crate's src/lib.rs and rebuild it",
            bad.display()
        )
    );
    assert_good_pack_works(&session, &dir);
}

#[test]
fn a_text_file_or_a_missing_file_is_reported() {
    let dir = TempDir::new().unwrap();
    let text = dir.path().join("libnotes.so");
    fs::write(&text, "just some text\n").unwrap();
    let missing = dir.path().join("libmissing.so");
    let session = TestSession::new(
        dir.path(),
        &[text.clone(), pack_path("batch-rename"), missing.clone()],
    );
    let problems = session.problems();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(
        problems[0],
        format!(
            "Failed to load tool pack {}: not a shared library: unrecognised file format",
            text.display()
        )
    );
    assert_eq!(
        problems[1],
        format!(
            "Failed to load tool pack {}: cannot read file: No such file or directory (os error 2)",
            missing.display()
        )
    );
    assert_good_pack_works(&session, &dir);
}

#[test]
fn a_panic_in_execute_is_an_error_result_and_the_session_goes_on() {
    let dir = TempDir::new().unwrap();
    let session = with_good_pack(&dir, pack_path("fixture-faulty-tools"));
    assert!(session.report.is_clean(), "{:?}", session.problems());
    let result = session.call("panic_execute", json!({}));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!(
            "Tool panic_execute panicked: execute exploded (at {})",
            faulty_site("execute exploded")
        )
    );
    assert_good_pack_works(&session, &dir);
}

#[test]
fn a_panic_in_apply_leaves_the_action_pending() {
    let dir = TempDir::new().unwrap();
    let session = with_good_pack(&dir, pack_path("fixture-faulty-tools"));
    let preview = session.call("panic_apply_preview", json!({}));
    assert_eq!(preview.text(), "previewed");
    for _ in 0..2 {
        let result = session.resolve("apply", "try");
        assert!(result.is_error);
        assert_eq!(
            result.text(),
            format!(
                "Apply failed: pack fixture-faulty-tools panicked: apply exploded (at {})",
                faulty_site("apply exploded")
            )
        );
        assert_eq!(session.pending_labels(), ["Faulty: apply panics"]);
    }
    let discarded = session.resolve("discard", "it cannot apply");
    assert_eq!(
        discarded.text(),
        "Discarded: Faulty: apply panics. Reason: it cannot apply"
    );
    assert_good_pack_works(&session, &dir);
}

#[test]
fn a_panic_in_reject_still_discards() {
    let dir = TempDir::new().unwrap();
    let session = with_good_pack(&dir, pack_path("fixture-faulty-tools"));
    session.call("panic_reject_preview", json!({}));
    let result = session.resolve("discard", "no");
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!(
            "Discard cleanup failed: pack fixture-faulty-tools panicked: reject exploded (at {})",
            faulty_site("reject exploded")
        )
    );
    assert!(!session.session.store().has_pending());
    assert_good_pack_works(&session, &dir);
}

#[test]
fn every_misbehaving_pack_at_once_leaves_the_good_one_working() {
    let dir = TempDir::new().unwrap();
    let mut paths: Vec<PathBuf> = [
        "fixture-panic-factory",
        "fixture-abi-future",
        "fixture-layout-mismatch",
        "fixture-not-a-pack",
    ]
    .iter()
    .map(|p| pack_path(p))
    .collect();
    paths.insert(2, pack_path("batch-rename"));
    let session = TestSession::new(dir.path(), &paths);
    assert_eq!(session.report.failures.len(), 4, "{:?}", session.problems());
    assert_eq!(session.report.loaded.len(), 1);
    assert_good_pack_works(&session, &dir);
}
