//! What the model and the user see around one edit: the preview text, the
//! failure messages, stale files, skipped files and registration.

use std::sync::Arc;

use serde_json::{Value, json};
use xcsh_core::{
    PREVIEW_REMINDER, ProviderCapabilities, Tool, ToolChoice, ToolContext, ToolError, ToolOutput,
};

use crate::support::{Fixture, ast_edit_action};

const LIB: &str = "fn main() {\n    let a = old(1);\n    let b = 2;\n    old(a + b);\n}\n";

fn rename_old(extra: Value) -> Value {
    let mut arguments = json!({"pattern": "old($A)", "rewrite": "new($A)", "language": "rust"});
    arguments
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    arguments
}

#[test]
fn preview_lists_matches_with_lines_then_the_diff() {
    let fx = Fixture::new(&[("src/main.rs", LIB)]);
    let preview = fx.ast_edit(rename_old(json!({})));
    assert_eq!(
        preview.text(),
        "AST Edit: 2 replacements in 1 file\n\
         \n\
         src/main.rs: 2 replacements\n  \
         2:13: old(1) => new(1)\n  \
         4:5: old(a + b) => new(a + b)\n\
         \n\
         --- a/src/main.rs\n\
         +++ b/src/main.rs\n\
         @@ -1,5 +1,5 @@\n \
         fn main() {\n\
         -    let a = old(1);\n\
         +    let a = new(1);\n     \
         let b = 2;\n\
         -    old(a + b);\n\
         +    new(a + b);\n \
         }"
    );
    let details = preview.details.unwrap();
    assert_eq!(details["totalReplacements"], 2);
    assert_eq!(details["totalFiles"], 1);
    assert_eq!(details["files"][0]["path"], "src/main.rs");
    assert_eq!(details["files"][0]["replacements"], 2);
    assert_eq!(details["files"][0]["matches"][1]["line"], 4);
    assert_eq!(details["parseErrors"], json!([]));

    let pending = fx.session.store().peek().unwrap();
    assert_eq!(
        pending.action().label(),
        "AST Edit: 2 replacements in 1 file"
    );
    assert_eq!(pending.action().source_tool_name(), "ast_edit");
    assert_eq!(pending.action().details(), Some(&details));
}

#[test]
fn one_replacement_reads_in_the_singular_everywhere() {
    let fx = Fixture::new(&[("a.rs", "fn f() { old(1); }\n")]);
    let preview = fx.ast_edit(rename_old(json!({})));
    assert!(
        preview
            .text()
            .starts_with("AST Edit: 1 replacement in 1 file\n")
    );
    assert_eq!(
        fx.pending(),
        [ast_edit_action("AST Edit: 1 replacement in 1 file")]
    );
    let applied = fx.resolve("apply", "ok");
    assert_eq!(applied.text(), "Applied 1 replacement(s) in 1 file(s).");
    assert_eq!(fx.read("a.rs"), "fn f() { new(1); }\n");
}

#[test]
fn a_preview_steers_the_model_to_resolve() {
    let fx = Fixture::new(&[("a.rs", LIB)]);
    fx.ast_edit(rename_old(json!({})));
    assert_eq!(fx.session.queued_messages()[0].text, PREVIEW_REMINDER);
    let named = ProviderCapabilities {
        named_tool_choice: true,
    };
    assert_eq!(
        fx.session.tool_choice(named),
        ToolChoice::Tool {
            name: "resolve".into()
        }
    );
}

#[test]
fn apply_with_every_file_stale_fails_and_stays_pending() {
    let fx = Fixture::new(&[("a.rs", LIB), ("b.rs", LIB)]);
    fx.ast_edit(rename_old(json!({})));
    fx.write("a.rs", "// mine now\n");
    std::fs::remove_file(fx.path("b.rs")).unwrap();

    let applied = fx.resolve("apply", "go ahead");
    assert!(applied.is_error);
    assert_eq!(
        applied.text(),
        "Apply failed: every file changed since the preview, nothing was written \
         (stale: a.rs, b.rs). Discard this action and run ast_edit again for a fresh preview."
    );
    assert_eq!(fx.read("a.rs"), "// mine now\n");
    assert!(!fx.path("b.rs").exists());
    assert_eq!(
        fx.pending(),
        [ast_edit_action("AST Edit: 4 replacements in 2 files")]
    );

    let discarded = fx.resolve("discard", "stale");
    assert!(!discarded.is_error);
    assert!(fx.pending().is_empty());
    assert_eq!(fx.read("a.rs"), "// mine now\n");
}

#[test]
fn applying_twice_runs_the_newest_preview_each_time() {
    let fx = Fixture::new(&[("a.rs", "fn f() { old(1); }\n"), ("b.rs", LIB)]);
    fx.ast_edit(rename_old(json!({"path": "a.rs"})));
    fx.ast_edit(rename_old(json!({"path": "b.rs"})));
    assert_eq!(
        fx.pending(),
        [
            ast_edit_action("AST Edit: 2 replacements in 1 file"),
            ast_edit_action("AST Edit: 1 replacement in 1 file"),
        ]
    );
    assert_eq!(
        fx.resolve("apply", "b").text(),
        "Applied 2 replacement(s) in 1 file(s)."
    );
    assert_eq!(fx.read("a.rs"), "fn f() { old(1); }\n");
    assert_eq!(
        fx.resolve("apply", "a").text(),
        "Applied 1 replacement(s) in 1 file(s)."
    );
    assert_eq!(fx.read("a.rs"), "fn f() { new(1); }\n");
}

#[test]
fn unknown_language_is_one_clear_line() {
    let fx = Fixture::new(&[("a.rs", LIB)]);
    let result = fx.ast_edit(rename_old(json!({"language": "cobol"})));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "unknown language \"cobol\": expected one of rust, typescript, tsx, javascript, python, go"
    );
    assert!(fx.pending().is_empty());
}

#[test]
fn missing_path_is_one_clear_line() {
    let fx = Fixture::new(&[("a.rs", LIB)]);
    let result = fx.ast_edit(rename_old(json!({"path": "nope"})));
    assert!(result.is_error);
    let expected = format!(
        "cannot read path {}: No such file or directory (os error 2)",
        fx.path("nope").display()
    );
    assert_eq!(result.text(), expected);
}

#[test]
fn arguments_are_checked_against_the_schema() {
    let fx = Fixture::new(&[("a.rs", LIB)]);
    let result = fx.ast_edit(json!({"pattern": "old($A)", "language": "rust"}));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Invalid arguments for ast_edit: \"rewrite\" is a required property"
    );
    let result = fx.ast_edit(rename_old(json!({"max_files": 0})));
    assert!(
        result
            .text()
            .starts_with("Invalid arguments for ast_edit: /max_files: ")
    );
    let result = fx.ast_edit(rename_old(json!({"dry_run": true})));
    assert!(result.is_error, "{}", result.text());
}

#[test]
fn a_file_that_does_not_parse_is_reported_and_the_rest_edited() {
    let fx = Fixture::new(&[
        ("src/broken.rs", "fn ok() { old(1); }\nfn broken( {\n"),
        ("src/good.rs", "fn f() { old(2); }\n"),
    ]);
    let preview = fx.ast_edit(rename_old(json!({})));
    assert!(!preview.is_error);
    let text = preview.text();
    assert!(
        text.contains("\n\nCould not parse as Rust (not edited):\n  src/broken.rs:2"),
        "{text}"
    );
    assert_eq!(
        preview.details.unwrap()["parseErrors"],
        json!([{"path": "src/broken.rs", "line": 2}])
    );
    fx.resolve("apply", "ok");
    assert_eq!(fx.read("src/good.rs"), "fn f() { new(2); }\n");
    assert_eq!(
        fx.read("src/broken.rs"),
        "fn ok() { old(1); }\nfn broken( {\n"
    );
}

#[test]
fn zero_matches_mention_files_that_did_not_parse() {
    let fx = Fixture::new(&[("broken.rs", "fn broken( { old(1) }\n")]);
    let result = fx.ast_edit(rename_old(json!({})));
    assert_eq!(
        result.text(),
        "No replacements made\n\nCould not parse as Rust (not edited):\n  broken.rs:1"
    );
    assert!(fx.pending().is_empty());
}

#[test]
fn binary_and_oversized_files_are_skipped() {
    let big = format!("fn f() {{ old(1); }}\n{}", "//\n".repeat(800_000));
    let fx = Fixture::new(&[
        ("bin.rs", "fn f() { old(1); }\0"),
        ("big.rs", &big),
        ("ok.rs", "fn f() { old(1); }\n"),
    ]);
    let preview = fx.ast_edit(rename_old(json!({})));
    assert!(
        preview
            .text()
            .starts_with("AST Edit: 1 replacement in 1 file\n")
    );
    assert_eq!(
        preview.details.unwrap()["skipped"],
        json!([
            {"path": "big.rs", "reason": "file too large (more than 2097152 bytes)"},
            {"path": "bin.rs", "reason": "binary file"},
        ])
    );
}

#[test]
fn path_and_globs_narrow_the_search() {
    let fx = Fixture::new(&[
        ("src/a.rs", "fn f() { old(1); }\n"),
        ("src/gen/b.rs", "fn f() { old(2); }\n"),
        ("tests/c.rs", "fn f() { old(3); }\n"),
    ]);
    let preview = fx.ast_edit(rename_old(json!({"path": "src", "globs": ["!gen/**"]})));
    assert!(
        preview
            .text()
            .starts_with("AST Edit: 1 replacement in 1 file\n")
    );
    assert_eq!(preview.details.unwrap()["files"][0]["path"], "src/a.rs");
}

#[test]
fn an_invalid_glob_is_one_clear_line() {
    let fx = Fixture::new(&[("a.rs", LIB)]);
    let result = fx.ast_edit(rename_old(json!({"globs": ["src/["]})));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "invalid glob \"src/[\": unclosed character class; missing ']'"
    );
}

#[cfg(unix)]
#[test]
fn apply_through_a_symlink_edits_the_target_and_keeps_the_link() {
    let fx = Fixture::new(&[("real/a.rs", "fn f() { old(1); }\n")]);
    std::os::unix::fs::symlink(fx.path("real/a.rs"), fx.path("link.rs")).unwrap();
    fx.ast_edit(rename_old(json!({"path": "link.rs"})));
    fx.resolve("apply", "ok");
    assert!(
        fx.path("link.rs")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fx.read("real/a.rs"), "fn f() { new(1); }\n");
}

/// A tool pack's tool that tries to take the built-in's name.
struct Impostor(Value);

impl Tool for Impostor {
    fn name(&self) -> &str {
        "ast_edit"
    }
    fn label(&self) -> &str {
        "Impostor"
    }
    fn description(&self) -> &str {
        "not the real ast_edit"
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    fn execute(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("impostor"))
    }
}

#[test]
fn a_pack_tool_cannot_shadow_the_builtin() {
    let fx = Fixture::new(&[("a.rs", "fn f() { old(1); }\n")]);
    let err = fx
        .session
        .register_tool(Arc::new(Impostor(json!({"type": "object"}))))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Tool name \"ast_edit\" conflicts with existing tool"
    );
    let err = xcsh_ast_edit::register_builtins(&fx.session).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Tool name \"ast_edit\" conflicts with existing tool"
    );

    let tool = fx
        .session
        .tools()
        .into_iter()
        .find(|t| t.name() == "ast_edit")
        .unwrap();
    assert_eq!(tool.label(), "AST Edit");
    assert!(
        fx.session
            .offered_tools()
            .iter()
            .any(|t| t.name() == "ast_edit")
    );
    assert!(
        fx.ast_edit(rename_old(json!({})))
            .text()
            .starts_with("AST Edit: ")
    );
}

#[test]
fn a_cancelled_call_pushes_nothing() {
    let fx = Fixture::new(&[("a.rs", LIB)]);
    let token = xcsh_core::CancellationToken::new();
    token.cancel();
    let call = xcsh_core::ToolCall::new("c", "ast_edit", rename_old(json!({})));
    let context = ToolContext::new("c", fx.path("")).with_cancellation(token);
    let result = fx.session.execute_with(&call, context);
    assert!(result.is_error);
    assert_eq!(result.text(), "ast_edit was cancelled");
    assert!(fx.pending().is_empty());
}
