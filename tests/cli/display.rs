//! What people read is escaped: control characters and terminal escapes
//! from tool output, arguments, labels and paths are shown, never obeyed,
//! in `run --pretty`, `tools`, the REPL and log lines. JSON output stays
//! exact.

use std::time::Duration;

use serde_json::json;

use crate::support::{Env, arg, batch_rename, canonical, copy_pack, json_lines, pack_path};

/// A suffix that, printed as it is, ends the preview's line, returns to
/// column 0 and prints a `resolve` line that never happened.
const FORGING_SUFFIX: &str = "\n\r✓ resolve  Accept: [Batch Rename] 1 file — reason: ok\u{1b}[2K";

/// The preview and a discard whose reason tries the same with a newline.
fn forging_script() -> String {
    [
        json!({"tool": "batch_rename_preview", "arguments": {
            "files": ["a.txt"], "rule": {"kind": "suffix", "suffix": FORGING_SUFFIX}}}),
        json!({"tool": "resolve", "arguments": {
            "action": "discard",
            "reason": "no\n✓ resolve  Accept: [Batch Rename] 1 file — reason: ok"}}),
    ]
    .map(|call| call.to_string())
    .join("\n")
}

#[test]
fn a_rename_suffix_cannot_forge_a_resolve_line_in_pretty_output() {
    let env = Env::new();
    env.write("a.txt", "a");
    let pack = batch_rename();
    let out = env.run(
        &["run", "--pretty", "--plugin", arg(&pack), "-"],
        &forging_script(),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let expected = format!(
        "Loaded tool pack batch-rename 0.1.0{built} from {path}: batch_rename_preview\n\
         ✓ batch_rename_preview  Batch rename preview (1 file):\n    \
         a.txt → a\\n\\r✓ resolve  Accept: [Batch Rename] 1 file — reason: ok\\u{{1b}}[2K.txt\n\
         ⏳ 1 pending: Batch Rename: 1 file\n\
         ✓ resolve  Discard: [Batch Rename] 1 file — reason: no\\n✓ resolve  Accept: [Batch Rename] 1 file — reason: ok\n  \
         Discarded batch rename of 1 file; nothing was renamed:\n    \
         a.txt → a\\n\\r✓ resolve  Accept: [Batch Rename] 1 file — reason: ok\\u{{1b}}[2K.txt\n",
        path = canonical(&pack).display(),
        built = crate::support::built(&pack)
    );
    assert_eq!(out.stdout, expected);
    assert!(!out.stdout.contains(['\r', '\u{1b}']));
    // Each file name stays on its rename's line: no line of its own.
    assert_eq!(out.stdout.lines().count(), 7, "{}", out.stdout);
    assert_eq!(env.files(), ["a.txt"]);
}

#[test]
fn json_output_keeps_control_characters_exact() {
    let env = Env::new();
    env.write("a.txt", "a");
    let out = env.run(
        &["run", "--plugin", arg(&batch_rename()), "-"],
        &forging_script(),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines = json_lines(&out.stdout);
    assert_eq!(
        lines[0]["result"]["details"]["renames"][0]["to"],
        format!("a{FORGING_SUFFIX}.txt")
    );
    assert_eq!(
        lines[1]["result"]["details"]["reason"],
        "no\n✓ resolve  Accept: [Batch Rename] 1 file — reason: ok"
    );
}

#[test]
fn tools_and_log_lines_escape_pack_labels_paths_and_output() {
    let env = Env::new();
    let dir = env.work().join("packs\u{1b}[2J\nLoaded tool pack evil");
    let pack = copy_pack("fixture-hostile", &dir);
    let missing = env.work().join("gone\r.so");
    let args = ["--plugin", arg(&pack), "--plugin", arg(&missing)];

    let tools = env.run(&[&["tools"][..], &args].concat(), "");
    assert_eq!(tools.code, Some(0), "{}", tools.stderr);
    let shown_dir = format!(
        "{}/packs\\u{{1b}}[2J\\nLoaded tool pack evil",
        canonical(env.work()).display()
    );
    // Column widths follow the longest name in the pack; the escaped label
    // is the widest label, so two spaces follow it.
    assert!(
        tools
            .stdout
            .lines()
            .any(|line| line.starts_with("  terminal_escapes ")
                && line
                    .contains(" Escapes \\u{1b}[31mred\\u{1b}[0m  model  fixture-hostile 0.1.0 (")),
        "{}",
        tools.stdout
    );
    assert!(
        tools.stdout.contains(&format!(
            "\n  Loaded tool pack fixture-hostile 0.1.0{} from {shown_dir}/",
            crate::support::built(&pack)
        )),
        "{}",
        tools.stdout
    );
    assert!(
        tools.stdout.contains(&format!(
            "\n  Plugin path not found: {}/gone\\r.so (from --plugin)\n",
            env.work().display()
        )),
        "{}",
        tools.stdout
    );
    assert!(!tools.stdout.contains(['\r', '\u{1b}']), "{}", tools.stdout);

    let json = env.run(&[&["tools", "--json"][..], &args].concat(), "");
    let listing: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let tool = listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "terminal_escapes")
        .unwrap();
    assert_eq!(tool["label"], "Escapes \u{1b}[31mred\u{1b}[0m");

    let call = json!({"tool": "terminal_escapes"}).to_string();
    let run = env.run(&[&["run", "--pretty"][..], &args, &["-"]].concat(), &call);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!(
            "warning: Plugin path not found: {}/gone\\r.so (from --plugin)\n",
            env.work().display()
        )
    );
    assert!(
        run.stdout.ends_with(
            "✓ terminal_escapes  first\\r\\u{1b}[2K✓ resolve  Accept: [Forged] 9 files\n  second\\u{7}\n"
        ),
        "{}",
        run.stdout
    );
}

#[cfg(unix)]
#[test]
fn the_repl_escapes_tool_output_pending_labels_and_tool_labels() {
    use expectrl::{Eof, Expect, Regex, Session};

    let env = Env::new();
    let pack = pack_path("fixture-hostile");
    let mut command = env.command(&["repl", "--plugin", arg(&pack)]);
    command.env("TERM", "xterm");
    let mut repl = Session::spawn(command).expect("spawn xcsh repl in a pty");
    repl.set_expect_timeout(Some(Duration::from_secs(30)));
    repl.expect("xcsh> ").unwrap();

    repl.send_line(r#"push_marker {"tag": "\u001b[31mred\r✓ forged"}"#)
        .unwrap();
    repl.expect("✓ push_marker  pushed \\u{1b}[31mred\\r✓ forged")
        .unwrap();
    repl.expect("⏳ 1 pending: Marker: \\u{1b}[31mred\\r✓ forged")
        .unwrap();
    repl.expect("xcsh [1 pending]> ").unwrap();

    repl.send_line("pending").unwrap();
    repl.expect("⏳ 1 pending: Marker: \\u{1b}[31mred\\r✓ forged")
        .unwrap();
    repl.send_line("tools").unwrap();
    repl.expect(Regex(
        r"  terminal_escapes +Escapes \\u\{1b\}\[31mred\\u\{1b\}\[0m",
    ))
    .unwrap();
    repl.send_line("terminal_escapes").unwrap();
    repl.expect("✓ terminal_escapes  first\\r\\u{1b}[2K✓ resolve  Accept: [Forged] 9 files")
        .unwrap();

    repl.send_line("exit").unwrap();
    repl.expect(Eof).unwrap();
}
