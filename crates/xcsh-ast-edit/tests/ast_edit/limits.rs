//! `max_replacements` and `max_files`.

use serde_json::json;

use crate::support::Fixture;

fn tree() -> Fixture {
    Fixture::new(&[
        ("a.py", "print(1)\nprint(2)\n"),
        ("b.py", "print(3)\n"),
        ("c.py", "print(4)\n"),
    ])
}

fn edit(fx: &Fixture, limits: serde_json::Value) -> xcsh_core::ToolResult {
    let mut arguments = json!({"pattern": "print($A)", "rewrite": "log($A)", "language": "py"});
    arguments
        .as_object_mut()
        .unwrap()
        .extend(limits.as_object().unwrap().clone());
    fx.ast_edit(arguments)
}

const LIMIT_NOTE: &str =
    "\n\nStopped at the max_replacements / max_files limit: more matches may exist.";

#[test]
fn max_replacements_cuts_inside_a_file() {
    let fx = tree();
    let preview = edit(&fx, json!({"max_replacements": 1}));
    let text = preview.text();
    assert!(
        text.starts_with("AST Edit: 1 replacement in 1 file\n"),
        "{text}"
    );
    assert!(text.contains(LIMIT_NOTE), "{text}");
    assert_eq!(preview.details.unwrap()["limitReached"], true);
    fx.resolve("apply", "ok");
    assert_eq!(fx.read("a.py"), "log(1)\nprint(2)\n");
    assert_eq!(fx.read("b.py"), "print(3)\n");
}

#[test]
fn max_replacements_stops_the_walk() {
    let fx = tree();
    let preview = edit(&fx, json!({"max_replacements": 3}));
    assert!(
        preview
            .text()
            .starts_with("AST Edit: 3 replacements in 2 files\n")
    );
    assert!(preview.text().contains(LIMIT_NOTE));
}

#[test]
fn max_files_stops_after_that_many_changed_files() {
    let fx = tree();
    let preview = edit(&fx, json!({"max_files": 2}));
    assert!(
        preview
            .text()
            .starts_with("AST Edit: 3 replacements in 2 files\n")
    );
    assert!(preview.text().contains(LIMIT_NOTE));
    fx.resolve("apply", "ok");
    assert_eq!(fx.read("c.py"), "print(4)\n");
}

#[test]
fn limits_that_are_not_reached_say_nothing() {
    let fx = tree();
    let preview = edit(&fx, json!({"max_files": 3, "max_replacements": 10}));
    assert!(
        preview
            .text()
            .starts_with("AST Edit: 4 replacements in 3 files\n")
    );
    assert!(!preview.text().contains("Stopped"));
    assert_eq!(preview.details.unwrap()["limitReached"], false);
}
