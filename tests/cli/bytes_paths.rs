//! Paths are bytes end to end: in a working directory whose name holds the
//! byte 0xE9, files named with the byte 0xFF are found by `ast_edit` and by
//! the batch-rename pack (in process and isolated) through every front end
//! (`run`, `run --pretty`, `repl`, `mcp` over stdio and HTTP, `agent`), are
//! changed on disk byte for byte, and are printed as `\xff`; a C pack gets
//! the working directory byte for byte; `xcsh trust` trusts such a
//! directory and shows it as `caf\xe9`; `xcsh undo` shows such files as
//! `\xff.rs` and restores them (names, contents, modes) byte for byte.

#![cfg(unix)]

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;
use xcsh_test_support::loopback::{Loopback, Script};

use crate::mcp_wire::Server;
use crate::support::{Env, arg, batch_rename, json_lines};

/// The preview `ast_edit` gives of the file named by the byte 0xFF.
const AST_PREVIEW: &str = r"AST Edit: 1 replacement in 1 file

\xff.rs: 1 replacement
  1:13: let x = 1 => let x = 2

--- a/\xff.rs
+++ b/\xff.rs
@@ -1 +1 @@
-fn main() { let x = 1; }
+fn main() { let x = 2; }";

/// What its apply says.
const AST_APPLIED: &str = "Applied 1 replacement(s) in 1 file(s).";

/// The preview batch-rename gives of the file named by the byte 0xFF.
const RENAME_PREVIEW: &str = "Batch rename preview (1 file):\n  \\xff.txt → \\xff-old.txt";

/// What its apply says.
const RENAME_APPLIED: &str = "Renamed 1 file:\n  \\xff.txt → \\xff-old.txt";

/// The path `bytes` names.
fn raw(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(bytes))
}

/// An environment whose working directory is named with the byte 0xE9
/// (`caf\xe9-…`), empty.
fn byte_named_env() -> Env {
    let work = tempfile::Builder::new()
        .prefix(OsStr::from_bytes(b"caf\xe9-"))
        .tempdir()
        .unwrap();
    Env {
        work,
        home: TempDir::new().unwrap(),
    }
}

/// A trusted working directory named `caf\xe9-…` holding `\xff.rs` (Rust
/// for `ast_edit`) and `\xff.txt` (for batch-rename).
fn bytes_env() -> Env {
    let env = byte_named_env();
    fs::write(
        env.work().join(raw(b"\xff.rs")),
        "fn main() { let x = 1; }\n",
    )
    .unwrap();
    fs::write(env.work().join(raw(b"\xff.txt")), "renamed").unwrap();
    env.trust();
    env
}

/// The four calls every front end makes, as (tool, arguments): each path
/// as xcsh prints it.
fn calls() -> [(&'static str, Value); 4] {
    [
        (
            "ast_edit",
            json!({"pattern": "let x = 1", "rewrite": "let x = 2", "language": "rust",
                   "path": r"\xff.rs"}),
        ),
        ("resolve", json!({"action": "apply", "reason": "ok"})),
        (
            "batch_rename_preview",
            json!({"files": [r"\xff.txt"], "rule": {"kind": "suffix", "suffix": "-old"}}),
        ),
        ("resolve", json!({"action": "apply", "reason": "ok"})),
    ]
}

/// The calls as `xcsh run` lines.
fn script() -> String {
    calls()
        .iter()
        .map(|(tool, arguments)| json!({"tool": tool, "arguments": arguments}).to_string() + "\n")
        .collect()
}

/// The files are changed byte for byte: `\xff.rs` edited, `\xff.txt`
/// renamed to `\xff-old.txt` with its contents, nothing else.
fn assert_changed_on_disk(work: &Path) {
    let mut names: Vec<Vec<u8>> = fs::read_dir(work)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().as_bytes().to_vec())
        .filter(|name| !name.starts_with(b"."))
        .collect();
    names.sort();
    assert_eq!(names, [b"\xff-old.txt".to_vec(), b"\xff.rs".to_vec()]);
    assert_eq!(
        fs::read(work.join(raw(b"\xff.rs"))).unwrap(),
        b"fn main() { let x = 2; }\n"
    );
    assert_eq!(
        fs::read(work.join(raw(b"\xff-old.txt"))).unwrap(),
        b"renamed"
    );
}

/// `extra` and the batch-rename pack for a session's command line.
fn session_args<'a>(command: &'a str, pack: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![command];
    args.extend_from_slice(extra);
    args.extend(["--plugin", pack]);
    args
}

fn run_json(extra: &[&str]) {
    let env = bytes_env();
    let pack = batch_rename();
    let output = env.run(&session_args("run", arg(&pack), extra), &script());
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stderr, "");
    let lines = json_lines(&output.stdout);
    let texts: Vec<&str> = lines
        .iter()
        .map(|line| line["result"]["content"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [AST_PREVIEW, AST_APPLIED, RENAME_PREVIEW, RENAME_APPLIED]
    );
    // JSON cannot hold the raw byte: details name the files as printed.
    assert_eq!(lines[0]["result"]["details"]["path"], r"\xff.rs");
    assert_eq!(
        lines[0]["result"]["details"]["files"][0]["path"],
        r"\xff.rs"
    );
    assert_eq!(
        lines[2]["result"]["details"]["renames"],
        json!([{"from": r"\xff.txt", "to": r"\xff-old.txt"}])
    );
    assert_changed_on_disk(env.work());
}

#[test]
fn run_finds_and_changes_files_named_with_bytes_in_a_directory_named_with_bytes() {
    run_json(&[]);
}

#[test]
fn run_does_the_same_with_the_pack_isolated() {
    run_json(&["--isolate"]);
}

/// What `run --pretty` and the REPL print for the four calls (each
/// result's lines indented under its header).
const PRETTY: &str = r"✓ ast_edit  AST Edit: 1 replacement in 1 file
  
  \xff.rs: 1 replacement
    1:13: let x = 1 => let x = 2
  
  --- a/\xff.rs
  +++ b/\xff.rs
  @@ -1 +1 @@
  -fn main() { let x = 1; }
  +fn main() { let x = 2; }
⏳ 1 pending: AST Edit: 1 replacement in 1 file
✓ resolve  Accept: [AST Edit] 1 replacement in 1 file — reason: ok
  Applied 1 replacement(s) in 1 file(s).
✓ batch_rename_preview  Batch rename preview (1 file):
    \xff.txt → \xff-old.txt
⏳ 1 pending: Batch Rename: 1 file
✓ resolve  Accept: [Batch Rename] 1 file — reason: ok
  Renamed 1 file:
    \xff.txt → \xff-old.txt
";

/// The line `--pretty` and `agent` begin with.
fn loaded(pack: &Path) -> String {
    format!(
        "Loaded tool pack batch-rename 0.1.0{} from {}: batch_rename_preview\n",
        crate::support::built(pack),
        pack.display()
    )
}

fn run_pretty(extra: &[&str]) {
    let env = bytes_env();
    let pack = batch_rename();
    let mut args = vec!["--pretty"];
    args.extend_from_slice(extra);
    let output = env.run(&session_args("run", arg(&pack), &args), &script());
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stderr, "");
    assert_eq!(output.stdout, format!("{}{PRETTY}", loaded(&pack)));
    assert_changed_on_disk(env.work());
}

#[test]
fn run_pretty_prints_the_names_escaped() {
    run_pretty(&[]);
}

#[test]
fn run_pretty_prints_the_names_escaped_with_the_pack_isolated() {
    run_pretty(&["--isolate"]);
}

fn repl(extra: &[&str]) {
    let env = bytes_env();
    let pack = batch_rename();
    let input: String = calls()
        .iter()
        .map(|(tool, arguments)| match *tool {
            "resolve" => "apply ok\n".to_owned(),
            _ => format!("{tool} {arguments}\n"),
        })
        .collect();
    let output = env.run(&session_args("repl", arg(&pack), extra), &input);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stdout,
        format!(
            "xcsh 0.1.0: 3 tools, 1 pack loaded, 0 failed. Type help for commands, Ctrl-D to quit.\n{PRETTY}"
        )
    );
    assert_changed_on_disk(env.work());
}

#[test]
fn the_repl_finds_and_prints_the_files() {
    repl(&[]);
}

#[test]
fn the_repl_finds_and_prints_the_files_with_the_pack_isolated() {
    repl(&["--isolate"]);
}

fn mcp(extra: &[&str]) {
    let env = bytes_env();
    let pack = batch_rename();
    let mut server = Server::start_with(&env, &session_args("mcp", arg(&pack), extra));
    server.initialize();
    let mut texts = Vec::new();
    for (id, (tool, arguments)) in (2..).zip(calls()) {
        server.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        let answer = server.until(id).pop().unwrap();
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        texts.push(answer["result"]["content"][0]["text"].clone());
    }
    assert_eq!(
        texts,
        [AST_PREVIEW, AST_APPLIED, RENAME_PREVIEW, RENAME_APPLIED]
    );
    let (status, _) = server.finish();
    assert!(status.success(), "{status}");
    assert_changed_on_disk(env.work());
}

#[test]
fn an_mcp_client_finds_and_changes_the_files() {
    mcp(&[]);
}

#[test]
fn an_mcp_client_finds_and_changes_the_files_with_the_pack_isolated() {
    mcp(&["--isolate"]);
}

fn mcp_http(extra: &[&str]) {
    let env = bytes_env();
    let pack = batch_rename();
    let mut args = vec!["--http", "127.0.0.1:0", "--no-token"];
    args.extend_from_slice(extra);
    let command = env.command(&session_args("mcp", arg(&pack), &args));
    let crate::mcp_http_server::Started {
        mut server,
        url,
        mut stderr,
        ..
    } = crate::mcp_http_server::start(command);
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let answer = crate::raw_http::post(&url, &[], &initialize.to_string());
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.header("mcp-session-id").unwrap().to_owned();
    let headers = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    crate::raw_http::post(&url, &headers, &initialized.to_string());
    let mut texts = Vec::new();
    for (id, (tool, arguments)) in (2..).zip(calls()) {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}});
        let answer = crate::raw_http::post(&url, &headers, &call.to_string());
        let result = answer
            .messages()
            .into_iter()
            .find(|message| message["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id}: {answer:?}"));
        assert_eq!(result["result"]["isError"], false, "{result}");
        texts.push(result["result"]["content"][0]["text"].clone());
    }
    assert_eq!(
        texts,
        [AST_PREVIEW, AST_APPLIED, RENAME_PREVIEW, RENAME_APPLIED]
    );
    let status = crate::mcp_http_server::stop(&mut server);
    assert!(status.success(), "{status}");
    assert_changed_on_disk(env.work());
}

#[test]
fn an_mcp_client_over_http_finds_and_changes_the_files() {
    mcp_http(&[]);
}

#[test]
fn an_mcp_client_over_http_finds_and_changes_the_files_with_the_pack_isolated() {
    mcp_http(&["--isolate"]);
}

/// A Chat Completions answer calling `tool` with `arguments`.
fn model_call(n: usize, tool: &str, arguments: &Value) -> Script {
    let body = json!({"choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("call_{n}"), "type": "function",
             "function": {"name": tool, "arguments": arguments.to_string()}}]}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
    .to_string();
    Box::new(move |_| (200, "application/json", body))
}

fn agent(extra: &[&str]) {
    let env = bytes_env();
    let mut answers: Vec<Script> = calls()
        .iter()
        .enumerate()
        .map(|(n, (tool, arguments))| model_call(n, tool, arguments))
        .collect();
    let done = json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "Done."}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 3}})
    .to_string();
    answers.push(Box::new(move |_| (200, "application/json", done)));
    let loopback = Loopback::serve(answers);
    let url = format!("{}/v1", loopback.url);
    let pack = batch_rename();
    let mut args = vec!["--base-url", &url, "--model", "scripted", "--no-stream"];
    args.extend_from_slice(extra);
    let mut args = session_args("agent", arg(&pack), &args);
    args.push("Edit and rename the files");
    let output = env.run(&args, "");
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stdout,
        format!(
            "{}{PRETTY}model: Done.\nAgent stopped: the model finished\n",
            loaded(&pack)
        )
    );
    // What the model was told is the same text, escaped.
    let seen = loopback.seen();
    let tool_result = |request: usize| {
        let messages = seen[request].body["messages"].as_array().unwrap();
        let result = messages.iter().rfind(|m| m["role"] == "tool").unwrap();
        result["content"].clone()
    };
    assert_eq!(tool_result(1), AST_PREVIEW);
    assert_eq!(tool_result(3), RENAME_PREVIEW);
    assert_changed_on_disk(env.work());
}

#[test]
fn the_agent_finds_and_changes_the_files() {
    agent(&[]);
}

#[test]
fn the_agent_finds_and_changes_the_files_with_the_pack_isolated() {
    agent(&["--isolate"]);
}

#[test]
fn trust_trusts_a_directory_named_with_bytes_and_shows_it_escaped() {
    let env = byte_named_env();
    fs::create_dir(env.work().join(".xcsh")).unwrap();
    fs::write(env.work().join(".xcsh/config.toml"), "").unwrap();
    let dir = fs::canonicalize(env.work()).unwrap();
    let shown = xcsh_text::escape::path(&dir).into_owned();
    assert!(shown.contains(r"/caf\xe9-"), "{shown}");

    // Untrusted, the project's config is skipped with a command that
    // pastes into bash.
    let output = env.run(&["run"], "");
    assert_eq!(
        output.stderr,
        format!(
            "warning: Skipped {shown}/.xcsh/config.toml: {shown} is not a trusted project (to trust it: xcsh trust $'{shown}')\n"
        )
    );
    let pasted = std::process::Command::new("bash")
        .args(["-c", &format!("printf %s $'{shown}'")])
        .output()
        .unwrap();
    assert_eq!(pasted.stdout, dir.as_os_str().as_bytes());

    let output = env.run(&["trust", "."], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stdout,
        format!(
            "Trusted {shown}: its config, 0 packs\n  e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  {shown}/.xcsh/config.toml\n"
        )
    );
    let output = env.run(&["run"], "");
    assert_eq!(output.stderr, "", "trusted now");
    let output = env.run(&["trust", "--list"], "");
    assert_eq!(output.stdout, format!("{shown}: its config, 0 packs\n"));
}

fn c_pack(extra: &[&str]) {
    let env = bytes_env();
    fs::write(env.work().join("a.txt"), "a").unwrap();
    let pack = crate::support::c_pack_path("batch_rename_c");
    let script = [
        json!({"tool": "batch_rename_preview",
               "arguments": {"files": ["a.txt"], "rule": {"kind": "suffix", "suffix": "-old"}}}),
        json!({"tool": "resolve", "arguments": {"action": "apply", "reason": "ok"}}),
    ]
    .map(|line| line.to_string() + "\n")
    .concat();
    let output = env.run(&session_args("run", arg(&pack), extra), &script);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stderr, "");
    let lines = json_lines(&output.stdout);
    assert_eq!(
        lines[1]["result"]["content"][0]["text"],
        "Renamed 1 file:\n  a.txt → a-old.txt"
    );
    assert_eq!(fs::read(env.work().join("a-old.txt")).unwrap(), b"a");
}

#[test]
fn a_c_pack_gets_the_working_directory_byte_for_byte() {
    c_pack(&[]);
}

#[test]
fn a_c_pack_gets_the_working_directory_byte_for_byte_isolated() {
    c_pack(&["--isolate"]);
}

#[test]
fn an_untrusted_directory_named_with_bytes_is_named_escaped_in_the_journal_notice() {
    let env = byte_named_env();
    fs::write(env.work().join(raw(b"\xff.txt")), "renamed").unwrap();
    let pack = batch_rename();
    let script = [
        json!({"tool": "batch_rename_preview",
               "arguments": {"files": [r"\xff.txt"], "rule": {"kind": "suffix", "suffix": "-old"}}}),
        json!({"tool": "resolve", "arguments": {"action": "apply", "reason": "ok"}}),
    ]
    .map(|line| line.to_string() + "\n")
    .concat();
    let output = env.run(&session_args("run", arg(&pack), &[]), &script);
    assert_eq!(output.code, Some(0), "{output:?}");
    let dir = xcsh_text::escape::path(&fs::canonicalize(env.work()).unwrap()).into_owned();
    let journal = xcsh_text::escape::path(&env.user_journal()).into_owned();
    assert!(dir.contains(r"/caf\xe9-"), "{dir}");
    assert_eq!(
        output.stderr,
        format!(
            "warning: {dir} is not a trusted directory, so nothing is written in it: this session's journal is kept in {journal} (xcsh journal there shows it; xcsh trust keeps it in the project)\n"
        )
    );
    assert_eq!(
        fs::read(env.work().join(raw(b"\xff-old.txt"))).unwrap(),
        b"renamed"
    );
}

/// Every file and directory under `dir` but dot files (`.xcsh/`), by name
/// as bytes, with its bytes and mode.
fn tree(dir: &Path) -> std::collections::BTreeMap<Vec<u8>, (Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(current) = stack.pop() {
        for entry in fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(dir).unwrap().as_os_str().as_bytes();
            if name.starts_with(b".") {
                continue;
            }
            let meta = fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                files.insert([name, b"/"].concat(), (Vec::new(), mode));
                stack.push(path);
            } else {
                files.insert(name.to_vec(), (fs::read(&path).unwrap(), mode));
            }
        }
    }
    files
}

/// `text`'s lines but the first (the apply's header, which has its time).
fn after_header(text: &str) -> Vec<&str> {
    text.lines().skip(1).collect()
}

/// The `ast_edit` and batch-rename applies of [`calls`] undone, newest
/// first: `xcsh undo` shows the files escaped, `xcsh undo --yes` restores
/// the names, contents and modes byte for byte.
fn undo_restores_names_as_bytes(extra: &[&str]) {
    use std::os::unix::fs::PermissionsExt as _;
    let env = bytes_env();
    for (name, mode) in [(&b"\xff.rs"[..], 0o600), (b"\xff.txt", 0o640)] {
        fs::set_permissions(env.work().join(raw(name)), fs::Permissions::from_mode(mode)).unwrap();
    }
    let before = tree(env.work());
    let pack = batch_rename();
    let output = env.run(&session_args("run", arg(&pack), extra), &script());
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_changed_on_disk(env.work());

    // Shown (standard input is not a terminal: nothing is undone).
    let shown = env.run(&["undo"], "");
    assert_eq!(shown.code, Some(1), "{shown:?}");
    assert!(
        shown
            .stdout
            .starts_with("Apply 2 \"Batch Rename: 1 file\" ("),
        "{shown:?}"
    );
    assert_eq!(
        after_header(&shown.stdout),
        [r"  renamed \xff.txt → \xff-old.txt"],
        "{shown:?}"
    );
    assert_changed_on_disk(env.work());

    let undone = env.run(&["undo", "--yes"], "");
    assert_eq!(undone.code, Some(0), "{undone:?}");
    assert_eq!(undone.stderr, "");
    assert_eq!(
        after_header(&undone.stdout),
        [
            r"  renamed \xff.txt → \xff-old.txt",
            "Undone apply 2: restored 1 file, removed 1 file."
        ],
        "{undone:?}"
    );
    let undone = env.run(&["undo", "--yes"], "");
    assert_eq!(undone.code, Some(0), "{undone:?}");
    assert!(
        undone
            .stdout
            .starts_with("Apply 1 \"AST Edit: 1 replacement in 1 file\" ("),
        "{undone:?}"
    );
    assert_eq!(
        after_header(&undone.stdout),
        [
            r"  modified \xff.rs",
            "Undone apply 1: restored 1 file, removed 0 files."
        ],
        "{undone:?}"
    );
    assert_eq!(tree(env.work()), before, "extra: {extra:?}");
}

#[test]
fn undo_restores_an_ast_edit_and_a_batch_rename_of_files_named_with_bytes() {
    undo_restores_names_as_bytes(&[]);
}

#[test]
fn undo_restores_them_the_same_with_the_pack_isolated() {
    undo_restores_names_as_bytes(&["--isolate"]);
}
