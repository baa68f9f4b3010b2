//! `ast_edit` in a real `xcsh` process: special files named in a script do
//! not swallow the script, and paths outside the working directory need
//! the user's `--allow-outside-root`.

use std::fs;

use serde_json::{Value, json};

use crate::support::{Env, json_lines};

fn ast_edit_line(path: &str) -> String {
    json!({"tool": "ast_edit", "arguments": {
        "pattern": "old($A)", "rewrite": "new($A)", "language": "rust", "path": path,
    }})
    .to_string()
        + "\n"
}

fn text(line: &Value) -> &str {
    line["result"]["content"][0]["text"].as_str().unwrap()
}

#[test]
fn dev_stdin_named_in_a_script_does_not_swallow_the_next_lines() {
    let env = Env::new();
    env.write("a.rs", "fn f() { old(1); }\n");
    for extra in [&[][..], &["--allow-outside-root"][..]] {
        let script = format!(
            "{}{}{{\"tool\": \"resolve\", \"arguments\": {{\"action\": \"apply\", \"reason\": \"ok\"}}}}\n",
            ast_edit_line("/dev/stdin"),
            ast_edit_line("a.rs"),
        );
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        args.push("-");
        let output = env.run(&args, &script);
        assert_eq!(output.code, Some(0), "{output:?}");
        let lines = json_lines(&output.stdout);
        assert_eq!(lines.len(), 3, "{extra:?}: {}", output.stdout);
        assert_eq!(lines[0]["result"]["isError"], true);
        assert_eq!(
            text(&lines[0]),
            "cannot read path /dev/stdin: No such file or directory (os error 2)"
        );
        assert_eq!(
            text(&lines[1]),
            "AST Edit: 1 replacement in 1 file\n\na.rs: 1 replacement\n  1:10: old(1) => new(1)\n\n--- a/a.rs\n+++ b/a.rs\n@@ -1 +1 @@\n-fn f() { old(1); }\n+fn f() { new(1); }"
        );
        assert_eq!(text(&lines[2]), "Applied 1 replacement(s) in 1 file(s).");
        env.write("a.rs", "fn f() { old(1); }\n");
    }
}

#[test]
fn a_path_outside_the_working_directory_needs_the_flag() {
    let env = Env::new();
    let outside = env.home.path().join("outside.rs");
    fs::write(&outside, "fn f() { old(1); }\n").unwrap();
    let outside = fs::canonicalize(outside).unwrap();
    let script = ast_edit_line(outside.to_str().unwrap())
        + "{\"tool\": \"resolve\", \"arguments\": {\"action\": \"apply\", \"reason\": \"ok\"}}\n";

    let refused = json_lines(&env.run(&["run", "-"], &script).stdout);
    assert_eq!(
        text(&refused[0]),
        format!(
            "path {0} is outside the working directory: it resolves to {0} \
             (start xcsh with --allow-outside-root to allow this)",
            outside.display()
        )
    );
    assert_eq!(refused[1]["result"]["isError"], true);
    assert_eq!(
        fs::read_to_string(&outside).unwrap(),
        "fn f() { old(1); }\n"
    );

    let allowed = json_lines(
        &env.run(&["run", "--allow-outside-root", "-"], &script)
            .stdout,
    );
    assert_eq!(allowed[0]["result"]["isError"], false, "{}", allowed[0]);
    assert_eq!(text(&allowed[1]), "Applied 1 replacement(s) in 1 file(s).");
    assert_eq!(
        fs::read_to_string(&outside).unwrap(),
        "fn f() { new(1); }\n"
    );
}

#[test]
fn batch_rename_refuses_files_outside_the_working_directory_even_with_the_flag() {
    let env = Env::new();
    let outside = env.home.path().join("a.txt");
    fs::write(&outside, "a").unwrap();
    let outside = fs::canonicalize(outside).unwrap();
    let absolute = outside.display().to_string();
    let pack = crate::support::batch_rename();
    let rule = json!({"kind": "prefix", "prefix": "new_"});
    let output = env.run(
        &[
            "run",
            "--allow-outside-root",
            "--plugin",
            crate::support::arg(&pack),
            "-",
        ],
        &crate::support::preview_line(&[&absolute], rule),
    );
    let lines = json_lines(&output.stdout);
    assert_eq!(lines[0]["result"]["isError"], true, "{}", lines[0]);
    assert_eq!(
        text(&lines[0]),
        format!(
            "{absolute}: outside the working directory (it resolves to {absolute}); \
             batch-rename only renames files inside it"
        )
    );
    assert_eq!(lines[0]["pending"], 0);
    assert!(outside.exists());
}
