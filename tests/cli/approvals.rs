//! Approval policies and the journal, end to end: `xcsh run` with `ask`
//! (with and without an explicit answer) and `deny`, the journal lines of
//! a preview, an apply, a decline and a failed apply, `xcsh journal`, an
//! unwritable journal, `xcsh tools`' policies and the REPL's yes / no.

use serde_json::{Value, json};

use crate::support::{Env, arg, batch_rename, json_lines, preview_line, resolve_line};

const NO_PERSON: &str = "Apply needs a person's approval (policy ask for batch_rename_preview), but xcsh run has no person to ask (start it with --approve-all or --decline-all to answer for one). The action is still pending.";

fn prefix_old(files: &[&str]) -> String {
    preview_line(files, json!({"kind": "prefix", "prefix": "old-"}))
}

fn script(lines: &[String]) -> String {
    lines.join("\n") + "\n"
}

fn journal(env: &Env) -> Vec<Value> {
    let text = std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl")).unwrap();
    json_lines(&text)
}

/// `(event, outcome)` of every journal line.
fn events(lines: &[Value]) -> Vec<(String, String)> {
    lines
        .iter()
        .map(|l| {
            (
                l["event"].as_str().unwrap().to_owned(),
                l["outcome"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[test]
fn run_refuses_an_ask_apply_without_an_answer_and_keeps_the_action() {
    let env = Env::new();
    env.write("a.txt", "a");
    let pack = batch_rename();
    let input = script(&[prefix_old(&["a.txt"]), resolve_line("apply", "ok")]);
    let output = env.run(
        &["run", "--ask", "batch-rename", "--plugin", arg(&pack)],
        &input,
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let steps = json_lines(&output.stdout);
    assert_eq!(steps[1]["result"]["isError"], true);
    assert_eq!(steps[1]["result"]["content"][0]["text"], NO_PERSON);
    assert_eq!(steps[1]["pending"], 1, "the action stays pending");
    assert_eq!(env.files(), ["a.txt"], "nothing applied");
    // The session end discards it, as always.
    assert!(
        output
            .stderr
            .contains("Discarded pending action \"Batch Rename: 1 file\"")
    );
}

#[test]
fn run_with_approve_all_applies_and_with_decline_all_discards() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let pack = batch_rename();
    let input = script(&[prefix_old(&["a.txt"]), resolve_line("apply", "ok")]);
    let output = env.run(
        &[
            "run",
            "--ask",
            "all",
            "--approve-all",
            "--plugin",
            arg(&pack),
        ],
        &input,
    );
    let steps = json_lines(&output.stdout);
    assert_eq!(steps[1]["result"]["isError"], false, "{output:?}");
    assert_eq!(env.files(), ["old-a.txt"]);
    assert_eq!(output.stderr, "");

    let env = Env::new();
    env.write("a.txt", "a");
    let output = env.run(
        &[
            "run",
            "--ask",
            "batch_rename_preview",
            "--decline-all",
            "--plugin",
            arg(&pack),
        ],
        &input,
    );
    let steps = json_lines(&output.stdout);
    let result = &steps[1]["result"];
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "A person declined to apply \"Batch Rename: 1 file\": it was discarded and nothing was applied. Their reason: declined by --decline-all\nDiscarded batch rename of 1 file; nothing was renamed:\n  a.txt → old-a.txt"
    );
    assert_eq!(result["details"]["decidedBy"], "--decline-all");
    assert_eq!(steps[1]["pending"], 0);
    assert_eq!(env.files(), ["a.txt"]);
}

#[test]
fn approve_all_and_decline_all_conflict() {
    let env = Env::new();
    let output = env.run(&["run", "--approve-all", "--decline-all"], "");
    assert_eq!(output.code, Some(2));
    assert!(
        output.stderr.contains("cannot be used with"),
        "{}",
        output.stderr
    );
}

#[test]
fn deny_refuses_apply_and_only_discard_works() {
    let env = Env::new();
    env.write("a.txt", "a");
    let pack = batch_rename();
    let input = script(&[
        prefix_old(&["a.txt"]),
        resolve_line("apply", "ok"),
        resolve_line("discard", "not allowed"),
    ]);
    let output = env.run(
        &[
            "run",
            "--deny",
            "batch-rename",
            "--approve-all",
            "--plugin",
            arg(&pack),
        ],
        &input,
    );
    let steps = json_lines(&output.stdout);
    assert_eq!(
        steps[1]["result"]["content"][0]["text"],
        "Apply refused: the policy for batch_rename_preview is deny; only discard is allowed. The action is still pending."
    );
    assert_eq!(steps[1]["pending"], 1);
    assert_eq!(steps[2]["result"]["isError"], false);
    assert_eq!(steps[2]["pending"], 0);
    assert_eq!(env.files(), ["a.txt"]);
}

#[test]
fn a_config_policy_shows_in_xcsh_tools_and_a_project_cannot_loosen_it() {
    let env = Env::new();
    let config = env.user_config_dir().join("config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(
        &config,
        "[approval]\npacks = { batch-rename = \"ask\" }\ntools = { ast_edit = \"deny\" }\n",
    )
    .unwrap();
    env.write(
        ".xcsh/config.toml",
        "[approval]\ndefault = \"model\"\ntools = { ast_edit = \"model\" }\n",
    );
    env.trust();
    let pack = batch_rename();
    let output = env.run(&["tools", "--json", "--plugin", arg(&pack)], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let listing: Value = serde_json::from_str(&output.stdout).unwrap();
    let policies: Vec<(&str, &Value)> = listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), &t["policy"]))
        .collect();
    assert_eq!(
        policies,
        [
            ("resolve", &Value::Null),
            ("ast_edit", &json!("deny")),
            ("batch_rename_preview", &json!("ask")),
        ]
    );
    let text = env.run(&["tools", "--plugin", arg(&pack)], "").stdout;
    assert!(
        text.contains("  ast_edit              AST Edit      deny   built-in\n"),
        "{text}"
    );
}

#[test]
fn the_journal_records_a_preview_an_apply_a_decline_and_a_failed_apply() {
    let env = Env::new();
    env.trust();
    for file in ["a.txt", "b.txt"] {
        env.write(file, file);
    }
    let pack = batch_rename();
    let input = script(&[
        // Two previews of a.txt: applying the newer leaves the older stale.
        prefix_old(&["a.txt"]),
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "new-"})),
        resolve_line("apply", "newer first"),
        resolve_line("apply", "then the older"),
        resolve_line("discard", "give up"),
    ]);
    let output = env.run(&["run", "--plugin", arg(&pack)], &input);
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines = journal(&env);
    assert_eq!(
        events(&lines),
        pairs(&[
            ("push", "pushed"),
            ("push", "pushed"),
            ("resolve", "applied"),
            ("resolve", "failed"),
            ("resolve", "discarded"),
        ])
    );
    let push = &lines[0];
    assert_eq!(push["tool"], "batch_rename_preview");
    assert_eq!(push["pack"], "batch-rename");
    assert_eq!(push["version"], "0.1.0");
    assert_eq!(push["label"], "Batch Rename: 1 file");
    assert_eq!(push["policy"], "model");
    assert_eq!(
        push["preview"],
        "Batch rename preview (1 file):\n  a.txt → old-a.txt"
    );
    assert_eq!(push["details"]["renames"][0]["to"], "old-a.txt");
    assert!(push["time"].as_str().unwrap().ends_with('Z'));
    let session = push["session"].as_str().unwrap();
    assert!(lines.iter().all(|l| l["session"] == session));
    let applied = &lines[2];
    assert_eq!(applied["action"], "apply");
    assert_eq!(applied["reason"], "newer first");
    assert_eq!(applied["decidedBy"], "model");
    let failed = &lines[3];
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .starts_with("Apply failed: "),
        "{failed}"
    );
    assert_eq!(failed["reason"], "then the older");

    // A decline, by a run's flag, is journaled as the answer and the discard.
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let input = script(&[prefix_old(&["a.txt"]), resolve_line("apply", "ok")]);
    env.run(
        &[
            "run",
            "--ask",
            "all",
            "--decline-all",
            "--plugin",
            arg(&pack),
        ],
        &input,
    );
    let lines = journal(&env);
    assert_eq!(
        events(&lines),
        pairs(&[
            ("push", "pushed"),
            ("answer", "decline"),
            ("resolve", "declined")
        ])
    );
    assert_eq!(lines[1]["decidedBy"], "--decline-all");
    assert_eq!(lines[2]["reason"], "declined by --decline-all");
    assert_eq!(lines[2]["policy"], "ask");
}

#[test]
fn xcsh_journal_prints_recent_entries_for_people_and_json_for_programs() {
    let env = Env::new();
    env.write("a.txt", "a");
    let pack = batch_rename();
    let input = script(&[prefix_old(&["a.txt"]), resolve_line("discard", "not now")]);
    env.run(&["run", "--plugin", arg(&pack)], &input);

    let output = env.run(&["journal"], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines: Vec<&str> = output.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", output.stdout);
    assert!(
        lines[0].ends_with(
            "  push     \"Batch Rename: 1 file\"  batch_rename_preview (batch-rename 0.1.0, model): pushed"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with(
            "  resolve  \"Batch Rename: 1 file\"  batch_rename_preview (batch-rename 0.1.0, model): discarded; discard by model; reason: not now"
        ),
        "{}",
        lines[1]
    );

    let output = env.run(&["journal", "--json", "-n", "1"], "");
    let entries = json_lines(&output.stdout);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["outcome"], "discarded");

    let fresh = Env::new();
    let output = fresh.run(&["journal"], "");
    assert!(output.stdout.starts_with("No journal yet: "), "{output:?}");
}

#[test]
fn the_journal_can_be_moved_or_turned_off() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let config = env.user_config_dir().join("config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let elsewhere = env.home.path().join("decisions.jsonl");
    std::fs::write(
        &config,
        format!("[journal]\npath = \"{}\"\n", elsewhere.display()),
    )
    .unwrap();
    let pack = batch_rename();
    let input = script(&[prefix_old(&["a.txt"])]);
    env.run(&["run", "--plugin", arg(&pack)], &input);
    let moved = std::fs::read_to_string(&elsewhere).unwrap();
    assert_eq!(moved.lines().count(), 2, "the push and the session end");
    assert!(!env.work().join(".xcsh/journal.jsonl").exists());

    // A path in the working directory, where isolated packs may write, is
    // not used: the journal goes to the user's data directory, said once.
    std::fs::write(&config, "[journal]\npath = \"log/decisions.jsonl\"\n").unwrap();
    let output = env.run(&["run", "--plugin", arg(&pack)], &input);
    assert!(!env.work().join("log").exists());
    let kept = std::fs::read_dir(env.user_data_dir().join("journals"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.is_file())
        .unwrap();
    assert_eq!(std::fs::read_to_string(&kept).unwrap().lines().count(), 2);
    assert!(
        output.stderr.contains(&format!(
            "warning: the journal {} would lie in the working directory, where isolated packs may write: this session's journal is kept in {} instead (put [journal] path under .xcsh/ or outside the project)\n",
            env.work().join("log/decisions.jsonl").display(),
            kept.display()
        )),
        "{output:?}"
    );

    std::fs::write(&config, "[journal]\nenabled = false\n").unwrap();
    env.run(&["run", "--plugin", arg(&pack)], &input);
    assert!(!env.work().join("log").exists());
    assert_eq!(
        env.run(&["journal"], "").stdout,
        "The journal is turned off ([journal] enabled = false in the user's config).\n"
    );
}

#[test]
fn an_unwritable_journal_warns_once_and_the_session_goes_on() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    // A directory where the journal file should be.
    std::fs::create_dir_all(env.work().join(".xcsh/journal.jsonl")).unwrap();
    let pack = batch_rename();
    let input = script(&[prefix_old(&["a.txt"]), resolve_line("apply", "ok")]);
    let output = env.run(&["run", "--plugin", arg(&pack)], &input);
    assert_eq!(output.code, Some(0), "{output:?}");
    let steps = json_lines(&output.stdout);
    assert_eq!(steps[1]["result"]["isError"], false);
    assert_eq!(env.files(), ["old-a.txt"], "the apply happened");
    let warnings: Vec<&str> = output.stderr.lines().collect();
    assert_eq!(warnings.len(), 1, "{}", output.stderr);
    assert!(
        warnings[0].starts_with(&format!(
            "warning: cannot write the journal {}: ",
            env.work().join(".xcsh/journal.jsonl").display()
        )),
        "{}",
        warnings[0]
    );
    assert!(warnings[0].ends_with("; the session goes on without it"));
}

#[cfg(unix)]
mod repl {
    use std::time::Duration;

    use expectrl::{Eof, Expect, Session};

    use crate::support::{Env, arg, batch_rename};

    type Repl = Session<expectrl::process::unix::UnixProcess, expectrl::process::unix::PtyStream>;

    fn start(env: &Env) -> Repl {
        let pack = batch_rename();
        let mut command = env.command(&["repl", "--ask", "all", "--plugin", arg(&pack)]);
        command.env("TERM", "xterm");
        let mut repl = Session::spawn(command).expect("spawn xcsh repl in a pty");
        repl.set_expect_timeout(Some(Duration::from_secs(30)));
        repl.expect("xcsh> ").unwrap();
        repl
    }

    fn preview(repl: &mut Repl, file: &str) {
        repl.send_line(format!(
            r#"batch_rename_preview {{"files": ["{file}"], "rule": {{"kind": "prefix", "prefix": "old-"}}}}"#
        ))
        .unwrap();
        repl.expect("xcsh [1 pending]> ").unwrap();
    }

    #[test]
    fn the_repl_shows_the_preview_and_a_yes_applies_a_no_declines() {
        let env = Env::new();
        env.write("a.txt", "a");
        env.write("b.txt", "b");
        let mut repl = start(&env);

        preview(&mut repl, "a.txt");
        repl.send_line("apply looks right").unwrap();
        repl.expect("Approval needed (batch_rename_preview policy: ask)")
            .unwrap();
        repl.expect(
            "The model wants to apply \"Batch Rename: 1 file\" (from batch_rename_preview).",
        )
        .unwrap();
        repl.expect("Its reason: looks right").unwrap();
        repl.expect("Preview:").unwrap();
        repl.expect("a.txt → old-a.txt").unwrap();
        repl.expect("Apply it? [y]es / [n]o / Enter to leave it pending: ")
            .unwrap();
        repl.send_line("y").unwrap();
        repl.expect("Renamed 1 file:").unwrap();
        repl.expect("xcsh> ").unwrap();

        preview(&mut repl, "b.txt");
        repl.send_line("apply").unwrap();
        repl.expect("Apply it? [y]es / [n]o / Enter to leave it pending: ")
            .unwrap();
        repl.send_line("n").unwrap();
        repl.expect("Why not? (optional, told to the model): ")
            .unwrap();
        repl.send_line("keep b as it is").unwrap();
        repl.expect("A person declined to apply \"Batch Rename: 1 file\": it was discarded and nothing was applied. Their reason: keep b as it is")
            .unwrap();
        repl.expect("xcsh> ").unwrap();

        // Enter leaves it pending.
        preview(&mut repl, "b.txt");
        repl.send_line("apply").unwrap();
        repl.expect("Apply it? [y]es / [n]o / Enter to leave it pending: ")
            .unwrap();
        repl.send_line("").unwrap();
        repl.expect("Apply not approved: the question was cancelled without an answer. The action is still pending.")
            .unwrap();
        repl.expect("xcsh [1 pending]> ").unwrap();

        repl.send_line("exit").unwrap();
        repl.expect(Eof).unwrap();
        assert_eq!(env.files(), ["b.txt", "old-a.txt"]);
    }
}
