//! `xcsh run`: scripted sessions over JSON lines, and `--pretty`.

use serde_json::{Value, json};
use xcsh_core::PREVIEW_REMINDER;

use crate::support::{Env, arg, batch_rename, json_lines, pack_path, preview_line, resolve_line};

fn env_with(files: &[&str]) -> Env {
    let env = Env::new();
    env.trust();
    for file in files {
        env.write(file, file);
    }
    env
}

fn run(env: &Env, script: &str) -> Vec<Value> {
    let output = env.run(&["run", "--plugin", arg(&batch_rename())], script);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stderr, "");
    json_lines(&output.stdout)
}

fn drafts_preview() -> String {
    preview_line(
        &["draft-a.md", "draft-b.md"],
        json!({"kind": "regex", "pattern": "^draft-", "replacement": "final-"}),
    )
}

fn text(result: &str, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": result}], "isError": is_error})
}

const FORCED: &str = "resolve";

fn forced() -> Value {
    json!({"type": "tool", "name": FORCED})
}

#[test]
fn preview_then_apply_renames_the_files() {
    let env = env_with(&["draft-a.md", "draft-b.md", "keep.txt"]);
    let script = format!(
        "{}\n{}\n",
        drafts_preview(),
        resolve_line("apply", "the drafts are final")
    );
    let lines = run(&env, &script);
    let renames = json!([
        {"from": "draft-a.md", "to": "final-a.md"},
        {"from": "draft-b.md", "to": "final-b.md"},
    ]);
    assert_eq!(
        lines,
        [
            json!({
                "line": 1, "id": null, "tool": "batch_rename_preview",
                "result": {
                    "content": [{"type": "text", "text": "Batch rename preview (2 files):\n  draft-a.md → final-a.md\n  draft-b.md → final-b.md"}],
                    "details": {"renames": renames, "unchanged": []},
                    "isError": false,
                },
                "pending": 1, "toolChoice": forced(), "reminders": [PREVIEW_REMINDER],
            }),
            json!({
                "line": 2, "id": null, "tool": "resolve",
                "result": {
                    "content": [{"type": "text", "text": "Renamed 2 files:\n  draft-a.md → final-a.md\n  draft-b.md → final-b.md"}],
                    "details": {
                        "action": "apply", "reason": "the drafts are final",
                        "label": "Batch Rename: 2 files", "sourceToolName": "batch_rename_preview",
                        "sourceResultDetails": {"renamed": ["draft-a.md → final-a.md", "draft-b.md → final-b.md"]},
                    },
                    "isError": false,
                },
                "pending": 0, "toolChoice": {"type": "auto"}, "reminders": [],
            }),
        ]
    );
    assert_eq!(env.files(), ["final-a.md", "final-b.md", "keep.txt"]);
    assert_eq!(
        std::fs::read_to_string(env.work().join("final-a.md")).unwrap(),
        "draft-a.md",
        "contents move with the name"
    );
}

#[test]
fn discard_leaves_the_files_alone() {
    let env = env_with(&["notes.txt"]);
    let script = format!(
        "{}\n{}\n",
        preview_line(&["notes.txt"], json!({"kind": "suffix", "suffix": "-old"})),
        resolve_line("discard", "still current")
    );
    let lines = run(&env, &script);
    assert_eq!(lines[0]["pending"], 1);
    assert_eq!(
        lines[1]["result"]["content"][0]["text"],
        "Discarded batch rename of 1 file; nothing was renamed:\n  notes.txt → notes-old.txt"
    );
    assert_eq!(lines[1]["result"]["details"]["action"], "discard");
    assert_eq!(lines[1]["result"]["details"]["reason"], "still current");
    assert_eq!(lines[1]["pending"], 0);
    assert_eq!(lines[1]["toolChoice"], json!({"type": "auto"}));
    assert_eq!(env.files(), ["notes.txt"]);
}

#[test]
fn bad_lines_give_error_results_and_nothing_pending_is_lost() {
    let env = env_with(&["draft-a.md", "draft-b.md"]);
    let script = [
        drafts_preview(),
        "not json".to_owned(),
        "".to_owned(),
        "# a comment".to_owned(),
        "[1, 2]".to_owned(),
        r#"{"id": "no-tool", "arguments": {}}"#.to_owned(),
        r#"{"tool": "no_such_tool", "id": 6}"#.to_owned(),
        r#"{"tool": "batch_rename_preview", "arguments": {"files": []}}"#.to_owned(),
        r#"{"tool": "resolve", "arguments": {"action": "maybe", "reason": "?"}}"#.to_owned(),
        resolve_line("apply", "after the noise"),
        resolve_line("apply", "again"),
    ]
    .join("\n");
    let lines = run(&env, &script);
    assert_eq!(lines.len(), 9, "blank and comment lines give no output");
    let errors: Vec<Value> = lines[1..7]
        .iter()
        .map(|l| {
            assert_eq!(l["pending"], 1, "{l}");
            assert_eq!(l["toolChoice"], forced(), "{l}");
            assert_eq!(l["reminders"], json!([]), "{l}");
            assert_eq!(l["result"]["isError"], true, "{l}");
            json!([
                l["line"],
                l["id"],
                l["tool"],
                l["result"]["content"][0]["text"]
            ])
        })
        .collect();
    assert_eq!(
        errors,
        [
            json!([
                2,
                null,
                null,
                "invalid JSON on line 2: expected ident at line 1 column 2"
            ]),
            json!([
                5,
                null,
                null,
                "invalid tool call on line 5: expected an object like {\"tool\": NAME, \"arguments\": {...}}"
            ]),
            json!([
                6,
                "no-tool",
                null,
                "invalid tool call on line 6: missing field `tool`"
            ]),
            json!([7, 6, "no_such_tool", "Unknown tool: no_such_tool"]),
            json!([
                8,
                null,
                "batch_rename_preview",
                "Invalid arguments for batch_rename_preview: \"rule\" is a required property; /files: [] has less than 1 item"
            ]),
            json!([
                9,
                null,
                "resolve",
                "Invalid arguments for resolve: /action: \"maybe\" is not one of \"apply\" or \"discard\""
            ]),
        ]
    );
    assert_eq!(
        lines[7]["result"]["content"][0]["text"],
        "Renamed 2 files:\n  draft-a.md → final-a.md\n  draft-b.md → final-b.md"
    );
    assert_eq!(
        lines[8]["result"],
        text(
            "No pending action to resolve. Nothing to apply or discard.",
            true
        )
    );
    assert_eq!(env.files(), ["final-a.md", "final-b.md"]);
}

#[test]
fn pretty_output_shows_status_pending_and_the_decision() {
    let env = env_with(&["draft-a.md", "draft-b.md", "notes.txt"]);
    let pack = batch_rename();
    let script = env.write(
        "script.jsonl",
        &[
            drafts_preview(),
            resolve_line("apply", "the drafts are final"),
            preview_line(&["notes.txt"], json!({"kind": "suffix", "suffix": "-old"})),
            "{oops".to_owned(),
            resolve_line("discard", "still current"),
            resolve_line("discard", "nothing left"),
        ]
        .join("\n"),
    );
    let output = env.run(
        &["run", "--pretty", "--plugin", arg(&pack), arg(&script)],
        "",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stdout,
        format!(
            "Loaded tool pack batch-rename 0.1.0{} from {}: batch_rename_preview
✓ batch_rename_preview  Batch rename preview (2 files):
    draft-a.md → final-a.md
    draft-b.md → final-b.md
⏳ 1 pending: Batch Rename: 2 files
✓ resolve  Accept: [Batch Rename] 2 files — reason: the drafts are final
  Renamed 2 files:
    draft-a.md → final-a.md
    draft-b.md → final-b.md
✓ batch_rename_preview  Batch rename preview (1 file):
    notes.txt → notes-old.txt
⏳ 1 pending: Batch Rename: 1 file
✗ invalid JSON on line 4: key must be a string at line 1 column 2
⏳ 1 pending: Batch Rename: 1 file
✓ resolve  Discard: [Batch Rename] 1 file — reason: still current
  Discarded batch rename of 1 file; nothing was renamed:
    notes.txt → notes-old.txt
✗ resolve  No pending action to resolve. Nothing to apply or discard.
",
            crate::support::built(&pack),
            crate::support::canonical(&pack).display()
        )
    );
    assert_eq!(
        env.files(),
        ["final-a.md", "final-b.md", "notes.txt", "script.jsonl"]
    );
}

#[test]
fn several_previews_resolve_newest_first() {
    let env = env_with(&["a.txt", "b.txt"]);
    let script = [
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "1-"})),
        preview_line(&["b.txt"], json!({"kind": "prefix", "prefix": "2-"})),
        resolve_line("discard", "not b"),
        resolve_line("apply", "a is fine"),
    ]
    .join("\n");
    let output = env.run(
        &["run", "--pretty", "--plugin", arg(&batch_rename())],
        &script,
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let pending: Vec<&str> = output
        .stdout
        .lines()
        .filter(|l| l.starts_with('⏳'))
        .collect();
    assert_eq!(
        pending,
        [
            "⏳ 1 pending: Batch Rename: 1 file",
            "⏳ 2 pending (newest first): Batch Rename: 1 file; Batch Rename: 1 file",
            "⏳ 1 pending: Batch Rename: 1 file",
        ]
    );
    assert!(output.stdout.contains("✓ resolve  Discard: [Batch Rename] 1 file — reason: not b\n  Discarded batch rename of 1 file; nothing was renamed:\n    b.txt → 2-b.txt\n"));
    assert_eq!(env.files(), ["1-a.txt", "b.txt"]);
}

#[test]
fn a_failing_pack_does_not_stop_the_others_from_working() {
    let env = env_with(&["x.txt"]);
    let bad = pack_path("fixture-panic-factory");
    let output = env.run(
        &[
            "run",
            "--plugin",
            arg(&bad),
            "--plugin",
            arg(&batch_rename()),
        ],
        &format!(
            "{}\n{}\n",
            preview_line(&["x.txt"], json!({"kind": "suffix", "suffix": "-1"})),
            resolve_line("apply", "ok")
        ),
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    assert!(
        output
            .stderr
            .contains("factory panicked: factory exploded on purpose")
    );
    let lines = json_lines(&output.stdout);
    assert_eq!(lines[1]["result"]["isError"], false, "{}", lines[1]);
    assert_eq!(env.files(), ["x-1.txt"]);
}

#[test]
fn ids_are_echoed_and_dash_reads_standard_input() {
    let env = Env::new();
    let output = env.run(
        &["run", "-"],
        "{\"tool\": \"ast_edit\", \"id\": \"call-7\", \"arguments\": {\"pattern\": \"a($X)\", \"rewrite\": \"b($X)\", \"language\": \"rust\"}}\n",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines = json_lines(&output.stdout);
    assert_eq!(lines[0]["id"], "call-7");
    assert_eq!(
        lines[0]["result"]["content"],
        text("No replacements made", false)["content"]
    );
    assert_eq!(lines[0]["result"]["isError"], false);
    assert_eq!(lines[0]["pending"], 0);
}

#[test]
fn a_line_that_is_not_utf8_is_an_error_result() {
    let env = Env::new();
    let mut command = env.command(&["run"]);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"\xff\xfe\n").unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let lines = json_lines(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(
        lines[0]["result"],
        text(
            "invalid UTF-8 on line 1: invalid utf-8 sequence of 1 bytes from index 0",
            true
        )
    );
}

#[test]
fn a_missing_script_is_an_error() {
    let env = Env::new();
    let output = env.run(&["run", "nope.jsonl"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(output.stdout, "");
    assert!(
        output
            .stderr
            .starts_with("error: cannot open script nope.jsonl: "),
        "{}",
        output.stderr
    );
    assert_eq!(output.stderr.lines().count(), 1);
}

#[test]
fn what_a_script_leaves_pending_is_discarded_at_the_end_never_applied() {
    let env = env_with(&["a.txt", "b.txt"]);
    let script = [
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "1-"})),
        preview_line(
            &["a.txt", "b.txt"],
            json!({"kind": "prefix", "prefix": "2-"}),
        ),
    ]
    .join("\n");
    let output = env.run(&["run", "--plugin", arg(&batch_rename())], &script);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(json_lines(&output.stdout)[1]["pending"], 2);
    assert_eq!(
        output.stderr,
        "warning: Discarded pending action \"Batch Rename: 2 files\": session ended without resolve\n\
         warning: Discarded pending action \"Batch Rename: 1 file\": session ended without resolve\n"
    );
    assert_eq!(env.files(), ["a.txt", "b.txt"]);
}

#[test]
fn pretty_output_shows_a_line_for_each_partial_result_as_the_call_runs() {
    let env = Env::new();
    let script = r#"{"id": "p", "tool": "progress", "arguments": {}}"#;
    let pack = pack_path("fixture-hostile");
    let output = env.run(&["run", "--pretty", "--plugin", arg(&pack)], script);
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines: Vec<&str> = output
        .stdout
        .lines()
        .filter(|line| !line.starts_with("Loaded tool pack"))
        .collect();
    assert_eq!(
        lines,
        [
            "… progress  step 1",
            "… progress  step 2",
            "✓ progress  done in p"
        ]
    );
    // JSON lines stay one object per call.
    let output = env.run(&["run", "--plugin", arg(&pack)], script);
    assert_eq!(output.stdout.lines().count(), 1, "{output:?}");
}

#[test]
fn a_driver_conversing_through_pipes_gets_each_answer_before_it_writes_the_next_line() {
    use std::io::{BufRead as _, BufReader, Write as _};
    let env = env_with(&["draft-a.md", "draft-b.md"]);
    let mut child = env
        .command(&["run", "--plugin", arg(&batch_rename())])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (lines_tx, lines) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let _ = lines_tx.send(line.unwrap());
        }
    });
    let answer = |lines: &std::sync::mpsc::Receiver<String>| -> Value {
        let line = lines
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("an answer while the driver waits (output not held back)");
        serde_json::from_str(&line).unwrap()
    };
    // Each line is written only after the answer to the one before: the
    // answer cannot wait for more input.
    writeln!(stdin, "{}", drafts_preview()).unwrap();
    stdin.flush().unwrap();
    assert_eq!(answer(&lines)["pending"], 1);
    writeln!(stdin, "{}", resolve_line("apply", "looks right")).unwrap();
    stdin.flush().unwrap();
    let applied = answer(&lines);
    assert_eq!(applied["result"]["isError"], false, "{applied}");
    assert_eq!(applied["line"], 2);
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert_eq!(env.files(), ["final-a.md", "final-b.md"]);
}
