//! Isolation end to end: `--isolate`, `XCSH_ISOLATE=1` and the user's
//! `[isolation]` table choose it; `xcsh tools` shows it; `xcsh run` goes on
//! after a crash.

use serde_json::json;

use crate::support::{
    Env, arg, batch_rename, canonical, json_lines, pack_path, preview_line, resolve_line, write,
};

fn crashy() -> std::path::PathBuf {
    pack_path("fixture-crashy")
}

/// True when `line` ends by saying its pack is isolated, sandboxed or not.
fn says_isolated(line: &str) -> bool {
    line.contains(", isolated, sandboxed (Landlock ABI ")
        || line.contains(", isolated, sandboxed (Landlock only: ")
        || line.contains(", isolated, sandboxed (namespaces, ")
        || line.contains(", isolated, unconfined: ")
}

#[test]
fn run_with_isolate_answers_a_crash_with_an_error_and_goes_on() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let script = [
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "new-"})),
        json!({"tool": "crashy_segfault", "arguments": {}}).to_string(),
        json!({"tool": "crashy_ok", "arguments": {}}).to_string(),
        resolve_line("apply", "still wanted"),
    ]
    .join("\n");
    let output = env.run(
        &[
            "run",
            "--isolate",
            "--plugin",
            arg(&batch_rename()),
            "--plugin",
            arg(&crashy()),
            "-",
        ],
        &script,
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines = json_lines(&output.stdout);
    let texts: Vec<&str> = lines
        .iter()
        .map(|line| line["result"]["content"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "Batch rename preview (1 file):\n  a.txt → new-a.txt",
            "Tool crashy_segfault crashed: the process of pack fixture-crashy was killed by signal SIGSEGV; the pack restarts on the next call",
            "still here",
            "Renamed 1 file:\n  a.txt → new-a.txt",
        ]
    );
    assert_eq!(lines[1]["result"]["isError"], true);
    assert_eq!(lines[1]["pending"], 1);
    assert_eq!(env.files(), ["new-a.txt"]);
    assert_eq!(output.stderr, "");
}

#[test]
fn the_environment_variable_isolates_every_pack_and_tools_says_so() {
    let env = Env::new();
    let pack = batch_rename();
    let mut command = env.command(&["tools", "--plugin", arg(&pack)]);
    command.env("XCSH_ISOLATE", "1");
    let output = env.run_command(command, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let path = canonical(&pack).display().to_string();
    let line = output
        .stdout
        .lines()
        .find(|line| line.contains("batch_rename_preview"))
        .unwrap();
    assert!(
        line.contains(&format!("batch-rename 0.1.0 ({path}), isolated, ")),
        "{line}"
    );
    assert!(says_isolated(line), "{line}");

    let mut command = env.command(&["tools", "--json", "--plugin", arg(&pack)]);
    command.env("XCSH_ISOLATE", "1");
    let output = env.run_command(command, "");
    let listing: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    let isolated = listing["tools"][2]["source"]["isolated"].as_str().unwrap();
    assert!(
        isolated.starts_with("sandboxed (Landlock ABI ")
            || isolated.starts_with("sandboxed (Landlock only: ")
            || isolated.starts_with("sandboxed (namespaces, ")
            || isolated.starts_with("unconfined: "),
        "{isolated}"
    );
}

#[test]
fn the_user_config_isolates_one_pack_and_a_project_config_cannot() {
    let env = Env::new();
    let (rename, crashy) = (batch_rename(), crashy());
    write(
        &env.user_config_dir().join("config.toml"),
        &format!(
            "[isolation.packs.{:?}]\nmemory_limit_mb = 512\n",
            arg(&crashy)
        ),
    );
    write(
        &env.work().join(".xcsh/config.toml"),
        &format!(
            "[isolation.packs.{:?}]\ncapabilities = [\"network\"]\n\n[journal]\npath = \"elsewhere.jsonl\"\n",
            arg(&rename)
        ),
    );
    // A project's config loads only once the user trusts the directory.
    let trusted = env.run(&["trust"], "");
    assert_eq!(trusted.code, Some(0), "{trusted:?}");
    let output = env.run(
        &["tools", "--plugin", arg(&rename), "--plugin", arg(&crashy)],
        "",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let line_of = |tool: &str| {
        output
            .stdout
            .lines()
            .find(|line| line.trim_start().starts_with(tool))
            .unwrap()
            .to_owned()
    };
    assert!(
        line_of("batch_rename_preview").ends_with(')'),
        "in-process: {}",
        line_of("batch_rename_preview")
    );
    assert!(
        says_isolated(&line_of("crashy_ok")),
        "{}",
        line_of("crashy_ok")
    );

    // Every front end says what it ignored the same way: `tools` in its
    // report, the others as warnings.
    let config = env.work().join(".xcsh/config.toml");
    let ignored = [
        format!(
            "Ignoring [isolation] in {}: isolation is set in the user's config file only",
            config.display()
        ),
        format!(
            "Ignoring [journal] in {}: the journal is set in the user's config file only",
            config.display()
        ),
    ];
    assert!(
        output
            .stdout
            .ends_with(&format!("  {}\n  {}\n", ignored[0], ignored[1])),
        "{}",
        output.stdout
    );
    assert!(
        output.stdout.contains(", 2 warnings\n"),
        "{}",
        output.stdout
    );
    let warnings = format!("warning: {}\nwarning: {}\n", ignored[0], ignored[1]);
    let output = env.run(&["run", "--plugin", arg(&rename), "-"], "");
    assert_eq!(output.stderr, warnings);
    let output = env.run(&["mcp", "--plugin", arg(&rename)], "");
    assert_eq!(output.stderr, warnings);
    // And the project's [journal] moved nothing.
    let script = format!(
        "{}\n{}\n",
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "p-"})),
        resolve_line("discard", "no")
    );
    env.write("a.txt", "a");
    let output = env.run(&["run", "--plugin", arg(&rename), "-"], &script);
    assert_eq!(output.stderr, warnings);
    assert!(env.work().join(".xcsh/journal.jsonl").is_file());
    assert!(!env.work().join("elsewhere.jsonl").exists());
}

#[test]
fn the_pack_host_subcommand_is_hidden() {
    let env = Env::new();
    let help = env.run(&["--help"], "");
    assert_eq!(help.code, Some(0));
    assert!(!help.stdout.contains("pack-host"), "{}", help.stdout);
}

/// Run by hand, or by anything but the agent, the pack host says in one
/// line why it stops.
#[test]
fn the_pack_host_without_an_agent_says_why_in_one_line() {
    let env = Env::new();
    let nothing = env.run(&["pack-host"], "");
    assert_eq!(nothing.code, Some(1));
    assert_eq!(
        nothing.stderr,
        "error: the agent closed the pipe before its hello\n"
    );
    let garbage = env.run(&["pack-host"], "abcd");
    assert_eq!(garbage.code, Some(1));
    assert_eq!(
        garbage.stderr,
        "error: the handshake with the agent: frame of 1684234849 bytes exceeds the limit of 268435456\n"
    );
}

#[test]
fn an_isolated_packs_pushes_follow_the_in_process_rules_and_reach_the_journal() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let hostile = pack_path("fixture-hostile");
    let script = [
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "new-"})),
        // Pushes 50 ms after its call returned: refused, as in-process.
        json!({"tool": "push_later", "arguments": {"tag": "late"}}).to_string(),
        json!({"tool": "late_push_outcome", "arguments": {"tag": "late", "ms": 10000}}).to_string(),
        resolve_line("apply", "the rename"),
    ]
    .join("\n");
    let output = env.run(
        &[
            "run",
            "--isolate",
            "--plugin",
            arg(&batch_rename()),
            "--plugin",
            arg(&hostile),
            "-",
        ],
        &script,
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    let lines = json_lines(&output.stdout);
    let text = |i: usize| lines[i]["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(text(1), "spawned");
    assert_eq!(
        text(2),
        xcsh_core::PUSH_OUTSIDE_CALL,
        "the pack sees the refusal"
    );
    assert_eq!(lines[2]["pending"], 1, "only the rename is pending");
    assert_eq!(text(3), "Renamed 1 file:\n  a.txt → new-a.txt");

    // The push of the isolated rename preview is journaled with its
    // producer, as an in-process one is.
    let journal = std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    assert_eq!(first["event"], "push");
    assert_eq!(first["label"], "Batch Rename: 1 file");
    assert_eq!(first["tool"], "batch_rename_preview");
}
