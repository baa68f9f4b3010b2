//! `xcsh undo` end to end: applies of the batch-rename pack and of a pack
//! that writes, deletes and renames (each in process and isolated) and of
//! `ast_edit` undone byte for byte, refusals, the journal, and the
//! reminder a running session gives the model (in `run` and over MCP).

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::support::{Env, arg, batch_rename, json_lines, preview_line, resolve_line};

/// Every file and directory under `dir` with its bytes and mode.
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                files.insert(format!("{name}/"), (Vec::new(), mode));
                stack.push(path);
            } else {
                files.insert(name, (std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    files
}

fn drafts(env: &Env) {
    env.write("draft-a.md", "a\n");
    env.write("draft-b.md", "b\n");
    let script = env.write("tool.sh", "#!/bin/sh\n");
    std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn rename_script() -> String {
    let preview = preview_line(
        &["draft-a.md", "draft-b.md"],
        json!({"kind": "regex", "pattern": "^draft-", "replacement": "final-"}),
    );
    format!("{preview}\n{}\n", resolve_line("apply", "final"))
}

/// The journal of the (untrusted) working directory, kept in the user's
/// data directory.
fn journal(env: &Env) -> Vec<Value> {
    json_lines(&std::fs::read_to_string(env.user_journal()).unwrap())
}

fn undo(env: &Env, args: &[&str]) -> crate::support::Output {
    let mut all = vec!["undo"];
    all.extend_from_slice(args);
    env.run(&all, "")
}

#[test]
fn a_batch_rename_in_process_and_isolated_is_undone_byte_for_byte_and_journaled() {
    for isolate in [false, true] {
        let env = Env::new();
        drafts(&env);
        let before = tree(env.work());
        let pack = batch_rename();
        let mut args = vec!["run", "--plugin", arg(&pack)];
        if isolate {
            args.push("--isolate");
        }
        let output = env.run(&args, &rename_script());
        assert_eq!(output.code, Some(0), "{output:?}");
        assert_eq!(env.files(), ["final-a.md", "final-b.md", "tool.sh"]);
        let applied = journal(&env).pop().unwrap();
        assert_eq!(
            (applied["outcome"].clone(), applied["snapshot"].clone()),
            (json!("applied"), json!("1"))
        );

        let listed = undo(&env, &["--list"]);
        assert!(
            listed.stdout.starts_with("   1  ")
                && listed
                    .stdout
                    .ends_with("  \"Batch Rename: 2 files\"  (2 files)\n"),
            "{listed:?}"
        );
        let output = undo(&env, &["--yes"]);
        assert_eq!(output.code, Some(0), "{output:?}");
        assert!(output.stdout.ends_with(
            "changed:\n  renamed draft-a.md → final-a.md\n  renamed draft-b.md → final-b.md\nUndone apply 1: restored 2 files, removed 2 files.\n"
        ), "{output:?}");
        assert_eq!(tree(env.work()), before, "isolate: {isolate}");
        let undone = journal(&env).pop().unwrap();
        assert_eq!(undone["event"], "undo");
        assert_eq!(undone["outcome"], "undone");
        assert_eq!(undone["snapshot"], "1");
        assert_eq!(undone["decidedBy"], "person");
        assert_eq!(
            undone["details"]["restored"],
            json!(["draft-a.md", "draft-b.md"])
        );
        // The undo's entry is sealed onto the session's chain.
        let entries = journal(&env).len();
        let verified = env.run(&["journal", "--verify"], "");
        assert_eq!(
            verified.stdout,
            format!(
                "Journal {} verifies: {entries} entries chained, none edited, removed or moved.\n",
                env.user_journal().display()
            ),
            "{verified:?}"
        );
        assert_eq!(
            undo(&env, &["--yes"]).stdout,
            format!(
                "Nothing to undo: every apply in {} was undone (xcsh undo --list shows them).\n",
                env.work().canonicalize().unwrap().display()
            )
        );
        // The list still shows the apply, marked undone, by whom and when.
        let listed = undo(&env, &["--list"]).stdout;
        let (apply, undone) = listed
            .trim_end()
            .split_once("  \"Batch Rename: 2 files\"  (2 files)  undone ")
            .unwrap_or_else(|| panic!("{listed:?}"));
        assert!(apply.starts_with("   1  "), "{listed:?}");
        assert!(
            undone.ends_with(" by person") && !undone.contains('\n'),
            "{listed:?}"
        );
    }
}

#[test]
fn a_pack_that_writes_deletes_and_renames_in_process_and_isolated_is_undone_byte_for_byte() {
    for isolate in [false, true] {
        let env = Env::new();
        drafts(&env);
        env.write("notes/keep.txt", "keep\n");
        env.write("gone.txt", "to be deleted\n");
        let before = tree(env.work());
        let pack = crate::support::pack_path("fixture-file-ops");
        let mut args = vec!["run", "--plugin", arg(&pack)];
        if isolate {
            args.push("--isolate");
        }
        let call = json!({"tool": "file_ops_preview", "arguments": {
            "write": {"draft-a.md": "rewritten\n", "new.txt": "new\n"},
            "delete": ["gone.txt"],
            "rename": [{"from": "tool.sh", "to": "bin/tools/tool.sh"}, {"from": "notes/keep.txt", "to": "kept.txt"}],
        }});
        let script = format!("{call}\n{}\n", resolve_line("apply", "ok"));
        let output = env.run(&args, &script);
        assert_eq!(output.code, Some(0), "{output:?}");
        assert!(
            json_lines(&output.stdout)[1]["result"]["isError"] == false,
            "{output:?}"
        );
        assert_eq!(
            env.files(),
            [
                "bin",
                "draft-a.md",
                "draft-b.md",
                "kept.txt",
                "new.txt",
                "notes"
            ]
        );
        let output = undo(&env, &["--yes"]);
        assert_eq!(output.code, Some(0), "{output:?}");
        assert!(
            output.stdout.ends_with(
                "changed:\n  renamed tool.sh → bin/tools/tool.sh\n  modified draft-a.md\n  deleted gone.txt\n  renamed notes/keep.txt → kept.txt\n  created new.txt\nUndone apply 1: restored 4 files, removed 3 files.\n"
            ),
            "{output:?}"
        );
        assert_eq!(tree(env.work()), before, "isolate: {isolate}");
    }
}

#[test]
fn an_ast_edit_is_undone_byte_for_byte() {
    let env = Env::new();
    let file = env.write("lib.rs", "fn f() { old(1); old(2); }\n");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write("other.rs", "fn g() {}\n");
    let before = tree(env.work());
    let script = json!({"tool": "ast_edit", "arguments": {
        "pattern": "old($A)", "rewrite": "new($A)", "language": "rust", "path": "lib.rs",
    }})
    .to_string()
        + "\n"
        + &resolve_line("apply", "ok");
    let output = env.run(&["run", "-"], &script);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "fn f() { new(1); new(2); }\n"
    );
    let output = undo(&env, &["--yes"]);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(tree(env.work()), before);
}

#[test]
fn a_file_changed_since_the_apply_is_refused_and_listed_and_force_restores_it() {
    let env = Env::new();
    drafts(&env);
    let before = tree(env.work());
    let output = env.run(&["run", "--plugin", arg(&batch_rename())], &rename_script());
    assert_eq!(output.code, Some(0), "{output:?}");
    env.write("final-b.md", "edited by hand\n");
    let refused = undo(&env, &["--yes"]);
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert_eq!(
        refused.stderr,
        "error: Undo refused: 1 file changed since apply 1: final-b.md. Nothing was restored; --force restores them anyway.\n"
    );
    assert_eq!(env.files(), ["final-a.md", "final-b.md", "tool.sh"]);
    let entry = journal(&env).pop().unwrap();
    assert_eq!(
        (entry["event"].clone(), entry["outcome"].clone()),
        (json!("undo"), json!("refused"))
    );
    let forced = undo(&env, &["--yes", "--force"]);
    assert_eq!(forced.code, Some(0), "{forced:?}");
    assert!(
        forced
            .stdout
            .contains("Changed since the apply, overwritten (--force): final-b.md\n")
    );
    assert_eq!(tree(env.work()), before);
}

#[test]
fn undo_by_id_is_refused_while_a_later_apply_of_the_same_files_stands() {
    let env = Env::new();
    drafts(&env);
    let pack = batch_rename();
    let plugin = ["run", "--plugin", arg(&pack)];
    assert_eq!(env.run(&plugin, &rename_script()).code, Some(0));
    let again = preview_line(&["final-a.md"], json!({"kind": "prefix", "prefix": "old-"}));
    let script = format!("{again}\n{}\n", resolve_line("apply", "older"));
    assert_eq!(env.run(&plugin, &script).code, Some(0));
    let refused = undo(&env, &["1", "--yes"]);
    assert_eq!(
        refused.stderr,
        "error: Undo refused: apply 2 (\"Batch Rename: 1 file\") came later and changed the same files: final-a.md. Undo it first.\n"
    );
    assert_eq!(undo(&env, &["2", "--yes"]).code, Some(0));
    assert_eq!(undo(&env, &["1", "--yes"]).code, Some(0));
    assert_eq!(env.files(), ["draft-a.md", "draft-b.md", "tool.sh"]);
}

#[test]
fn undo_can_be_turned_off_in_the_users_config() {
    let env = Env::new();
    drafts(&env);
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        "[undo]\nenabled = false\n",
    );
    assert_eq!(
        env.run(&["run", "--plugin", arg(&batch_rename())], &rename_script())
            .code,
        Some(0)
    );
    assert!(journal(&env).pop().unwrap().get("snapshot").is_none());
    assert!(
        undo(&env, &["--list"])
            .stdout
            .starts_with("Nothing to undo")
    );
}

#[test]
fn a_running_session_tells_the_model_what_a_person_undid() {
    let env = Env::new();
    drafts(&env);
    let mut child = env
        .command(&["run", "--plugin", arg(&batch_rename())])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    stdin.write_all(rename_script().as_bytes()).unwrap();
    stdin.flush().unwrap();
    for _ in 0..2 {
        lines.next().unwrap().unwrap();
    }
    assert_eq!(undo(&env, &["--yes"]).code, Some(0));
    writeln!(stdin, "{}", resolve_line("apply", "anything left?")).unwrap();
    stdin.flush().unwrap();
    let next: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    drop(stdin);
    child.wait().unwrap();
    assert_eq!(
        next["reminders"],
        json!([
            "<system-reminder>\nA person undid apply 1 (\"Batch Rename: 2 files\"): restored draft-a.md, draft-b.md; removed final-a.md, final-b.md. Those files are as they were before that apply: read them again before relying on what you saw.\n</system-reminder>"
        ])
    );
}

/// The server's answer to request `id` (notifications before it skipped).
fn reply(server: &crate::mcp_wire::Server, id: u64) -> Value {
    server.until(id).pop().unwrap()
}

const INITIALIZE: &str = r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}"#;

#[test]
fn the_reminder_reaches_the_model_over_mcp() {
    let env = Env::new();
    env.write("lib.rs", "fn f() { old(1); }\n");
    let mut server = crate::mcp_wire::Server::start_with(&env, &["mcp"]);
    server.send(INITIALIZE.as_bytes());
    reply(&server, 1);
    server.send(br#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
            .to_string()
    };
    let edit =
        json!({"pattern": "old($A)", "rewrite": "new($A)", "language": "rust", "path": "lib.rs"});
    server.send(call(2, "ast_edit", edit).as_bytes());
    reply(&server, 2);
    server.send(call(3, "resolve", json!({"action": "apply", "reason": "ok"})).as_bytes());
    let applied = reply(&server, 3);
    assert_eq!(applied["result"]["isError"], false, "{applied}");
    assert_eq!(
        std::fs::read_to_string(env.work().join("lib.rs")).unwrap(),
        "fn f() { new(1); }\n"
    );
    assert_eq!(undo(&env, &["--yes"]).code, Some(0));
    server.send(call(4, "resolve", json!({"action": "apply", "reason": "more?"})).as_bytes());
    let content = reply(&server, 4)["result"]["content"].clone();
    let texts: Vec<&str> = content
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect();
    assert_eq!(
        texts.last().copied(),
        Some(
            "<system-reminder>\nA person undid apply 1 (\"AST Edit: 1 replacement in 1 file\"): restored lib.rs. Those files are as they were before that apply: read them again before relying on what you saw.\n</system-reminder>"
        )
    );
}

/// Sets `path`'s permission bits.
fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn undo_of_a_rename_an_ast_edit_and_a_multi_file_apply_keeps_modes_600_640_and_755() {
    for isolate in [false, true] {
        let env = Env::new();
        for (name, mode) in [
            ("draft-a.md", 0o600),
            ("draft-b.md", 0o640),
            ("draft-c.sh", 0o755),
        ] {
            chmod(&env.write(name, &format!("{name}\n")), mode);
        }
        for (name, mode) in [("a.rs", 0o600), ("b.rs", 0o640), ("c.rs", 0o755)] {
            chmod(&env.write(name, "fn f() { old(1); }\n"), mode);
        }
        let before = tree(env.work());
        let pack = batch_rename();
        let ops = crate::support::pack_path("fixture-file-ops");
        let mut args = vec!["run", "--plugin", arg(&pack), "--plugin", arg(&ops)];
        if isolate {
            args.push("--isolate");
        }
        let rename = preview_line(
            &["draft-a.md", "draft-b.md", "draft-c.sh"],
            json!({"kind": "regex", "pattern": "^draft-", "replacement": "final-"}),
        );
        let edit = json!({"tool": "ast_edit", "arguments": {
            "pattern": "old($A)", "rewrite": "new($A)", "language": "rust", "path": ".",
        }});
        let multi = json!({"tool": "file_ops_preview", "arguments": {
            "write": {"a.rs": "rewritten\n"},
            "delete": ["b.rs"],
            "rename": [{"from": "c.rs", "to": "bin/c.rs"}],
        }});
        let apply = resolve_line("apply", "ok");
        let script = format!("{rename}\n{apply}\n{edit}\n{apply}\n{multi}\n{apply}\n");
        let output = env.run(&args, &script);
        assert_eq!(output.code, Some(0), "{output:?}");
        let results = json_lines(&output.stdout);
        assert!(
            results
                .iter()
                .all(|line| line["result"]["isError"] == false),
            "{output:?}"
        );
        assert_eq!(
            env.files(),
            ["a.rs", "bin", "final-a.md", "final-b.md", "final-c.sh"]
        );
        for _ in 0..3 {
            let output = undo(&env, &["--yes"]);
            assert_eq!(output.code, Some(0), "{output:?}");
        }
        assert_eq!(tree(env.work()), before, "isolate: {isolate}");
    }
}

#[test]
fn undo_never_writes_through_a_link_put_in_the_way_after_the_apply() {
    for isolate in [false, true] {
        let env = Env::new();
        let outside = tempfile::tempdir().unwrap();
        env.write("sub/notes.txt", "notes\n");
        let pack = crate::support::pack_path("fixture-file-ops");
        let mut args = vec!["run", "--plugin", arg(&pack)];
        if isolate {
            args.push("--isolate");
        }
        let write = json!({"tool": "file_ops_preview", "arguments": {
            "write": {"sub/authorized_keys": "ssh-ed25519 AAAA attacker\n"},
        }});
        let delete = json!({"tool": "file_ops_preview", "arguments": {
            "delete": ["sub/authorized_keys", "sub/notes.txt"],
        }});
        let apply = resolve_line("apply", "ok");
        let output = env.run(&args, &format!("{write}\n{apply}\n{delete}\n{apply}\n"));
        assert_eq!(output.code, Some(0), "{output:?}");
        // What the pack does next: its directory becomes a link to one
        // outside the project.
        std::fs::remove_dir(env.work().join("sub")).unwrap();
        std::os::unix::fs::symlink(outside.path(), env.work().join("sub")).unwrap();
        for force in [&["--yes"][..], &["--yes", "--force"]] {
            let refused = undo(&env, force);
            assert_eq!(refused.code, Some(1), "{refused:?}");
            assert_eq!(
                refused.stderr,
                "error: Undo refused: cannot restore sub/authorized_keys, sub/notes.txt safely: sub is now a symbolic link, not the directory the snapshot recorded. Nothing was restored, with or without --force; put the directory back and undo again.\n"
            );
            assert_eq!(
                std::fs::read_dir(outside.path()).unwrap().count(),
                0,
                "nothing written outside (isolate: {isolate})"
            );
            let entry = journal(&env).pop().unwrap();
            assert_eq!(
                (entry["event"].clone(), entry["outcome"].clone()),
                (json!("undo"), json!("refused"))
            );
        }
    }
}

#[test]
fn a_journal_cut_short_emptied_or_swapped_does_not_verify() {
    let env = Env::new();
    drafts(&env);
    let output = env.run(&["run", "--plugin", arg(&batch_rename())], &rename_script());
    assert_eq!(output.code, Some(0), "{output:?}");
    let path = env.user_journal();
    let text = std::fs::read_to_string(&path).unwrap();
    let count = text.lines().count();
    let lines: Vec<&str> = text.lines().collect();
    let verify = |contents: String| {
        std::fs::write(&path, contents).unwrap();
        env.run(&["journal", "--verify"], "")
    };
    let intact = verify(text.clone());
    assert_eq!(intact.code, Some(0), "{intact:?}");
    for kept in [count - 1, 0] {
        let cut = verify(
            lines[..kept]
                .iter()
                .map(|line| format!("{line}\n"))
                .collect(),
        );
        assert_eq!(cut.code, Some(1), "{cut:?}");
        assert_eq!(
            cut.stderr,
            format!(
                "error: journal {}: entry {} breaks the chain: it is missing: xcsh wrote {count} entries, the journal holds {kept} (cut short, emptied or replaced)\n",
                path.display(),
                kept + 1
            )
        );
    }
}
