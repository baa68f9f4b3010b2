use serde_json::json;

use super::*;

fn call(tool: &str, arguments: Value) -> Input {
    Input::Call(Request {
        id: None,
        tool: tool.into(),
        arguments,
    })
}

#[test]
fn the_prompt_shows_the_pending_stack() {
    assert_eq!(prompt(0), "xcsh> ");
    assert_eq!(prompt(2), "xcsh [2 pending]> ");
}

#[test]
fn commands_and_calls_parse() {
    assert_eq!(parse("  "), Input::Empty);
    assert_eq!(parse("help"), Input::Help);
    assert_eq!(parse("tools"), Input::Tools);
    assert_eq!(parse("pending"), Input::Pending);
    assert_eq!(parse("quit"), Input::Quit);
    assert_eq!(
        parse("apply"),
        call(
            "resolve",
            json!({"action": "apply", "reason": "approved by the user"})
        )
    );
    assert_eq!(
        parse("discard  not now "),
        call("resolve", json!({"action": "discard", "reason": "not now"}))
    );
    assert_eq!(parse("ast_edit"), call("ast_edit", json!({})));
    assert_eq!(
        parse(r#"batch_rename_preview {"files": ["a"]}"#),
        call("batch_rename_preview", json!({"files": ["a"]}))
    );
    assert_eq!(
        parse(r#"{"tool": "resolve", "arguments": {"action": "apply"}}"#),
        call("resolve", json!({"action": "apply"}))
    );
}

#[test]
fn bad_input_says_why() {
    assert_eq!(
        parse("batch_rename_preview {files}"),
        Input::Invalid(
            "invalid JSON arguments for batch_rename_preview: key must be a string at line 1 column 2"
                .into()
        )
    );
    assert_eq!(
        parse(r#"{"tool": 1}"#),
        Input::Invalid("invalid tool call: invalid type: integer `1`, expected a string".into())
    );
}

#[test]
fn completion_offers_tool_names_and_commands_for_the_first_word() {
    let helper = ToolNames(vec![
        "apply".into(),
        "ast_edit".into(),
        "batch_rename_preview".into(),
        "resolve".into(),
    ]);
    let history = DefaultHistory::new();
    let ctx = rustyline::Context::new(&history);
    assert_eq!(
        helper.complete("a", 1, &ctx).unwrap(),
        (0, vec!["apply".to_owned(), "ast_edit".to_owned()])
    );
    assert_eq!(
        helper.complete("  bat", 5, &ctx).unwrap(),
        (2, vec!["batch_rename_preview".to_owned()])
    );
    assert_eq!(helper.complete("resolve {", 9, &ctx).unwrap(), (9, vec![]));
}

#[test]
fn undo_takes_an_id_force_and_list() {
    use crate::cli::UndoArgs;
    assert_eq!(parse("undo"), Input::Undo(UndoArgs::default()));
    assert_eq!(
        parse("undo 3 --force"),
        Input::Undo(UndoArgs {
            id: Some(3),
            force: true,
            ..UndoArgs::default()
        })
    );
    assert_eq!(
        parse("undo --list"),
        Input::Undo(UndoArgs {
            list: true,
            ..UndoArgs::default()
        })
    );
    assert_eq!(
        parse("undo x"),
        Input::Invalid("undo: unexpected \"x\" (undo [ID] [--force], or undo --list)".to_owned())
    );
}
