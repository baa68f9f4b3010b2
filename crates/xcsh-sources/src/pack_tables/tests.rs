use serde_json::json;

use super::*;

fn tables(value: Value) -> PackTables {
    serde_json::from_value(value).unwrap()
}

#[test]
fn a_project_narrows_numbers_lists_and_switches() {
    let user = tables(json!({"text-replace": {
        "max_files": 100, "globs": ["*.rs", "*.md"], "allow_delete": true, "mode": "fast"}}));
    let project = tables(json!({"text-replace": {
        "max_files": 10, "globs": ["*.rs"], "allow_delete": false, "mode": "fast"}}));
    let (merged, ignored) = narrow(&user, &project);
    assert_eq!(ignored, []);
    assert_eq!(
        merged["text-replace"],
        json!({"max_files": 10, "globs": ["*.rs"], "allow_delete": false, "mode": "fast"})
    );
}

#[test]
fn what_would_widen_is_ignored_and_named() {
    let user = tables(json!({"text-replace": {
        "max_files": 5, "globs": ["*.rs"], "allow_delete": false, "mode": "fast",
        "limits": {"bytes": 10}}}));
    let project = tables(json!({
        "text-replace": {"max_files": 50, "globs": ["*"], "allow_delete": true,
                         "mode": "slow", "other": 1, "limits": {"bytes": 20}},
        "unset-pack": {"x": 1}}));
    let (merged, ignored) = narrow(&user, &project);
    assert_eq!(merged["text-replace"], user["text-replace"]);
    assert!(!merged.contains_key("unset-pack"));
    let lines: Vec<String> = ignored
        .iter()
        .map(|w| format!("{} {}: {}", w.pack, w.key, w.why))
        .collect();
    assert_eq!(
        lines,
        [
            "text-replace allow_delete: true widens the user's false",
            "text-replace globs: \"*\" is not in the user's list",
            "text-replace limits.bytes: 20 is more than the user's 10",
            "text-replace max_files: 50 is more than the user's 5",
            "text-replace mode: \"slow\" differs from the user's \"fast\"",
            "text-replace other: the user's config does not set it",
            "unset-pack x: the user's config does not configure this pack",
        ]
    );
}

#[test]
fn a_table_naming_no_pack_is_found_with_the_closest_name() {
    let user = tables(json!({
        "json_patch": {}, "batch-renam": {}, "Text-Replace": {},
        "unrelated": {}, "batch-rename": {}}));
    let packs = ["json-patch", "batch-rename", "text-replace"];
    let unknown = unknown_tables(&user, packs);
    let found: Vec<(&str, Option<&str>)> = unknown
        .iter()
        .map(|u| (u.table.as_str(), u.closest.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            ("Text-Replace", Some("text-replace")),
            ("batch-renam", Some("batch-rename")),
            ("json_patch", Some("json-patch")),
            ("unrelated", None),
        ]
    );
    assert!(
        unknown_tables(
            &user,
            [
                "json_patch",
                "batch-renam",
                "Text-Replace",
                "unrelated",
                "batch-rename"
            ]
        )
        .is_empty()
    );
}
