//! A journal that is safe to keep where it is and hard to fake: nothing is
//! written in or through an untrusted checkout's `.xcsh/` (its sessions
//! journal to the user's data directory, and say so once); a trusted
//! directory's `.xcsh/journal.jsonl` that is a link, a FIFO or a device is
//! refused (nothing outside is written, nothing hangs, nothing grows), and
//! `xcsh journal --verify` names the first entry edited, removed or moved.

#![cfg(unix)]

use std::fs;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::{Env, arg, batch_rename, preview_line, resolve_line};

fn session(env: &Env, file: &str) -> String {
    env.write(file, "a");
    let preview = preview_line(&[file], json!({"kind": "prefix", "prefix": "old-"}));
    format!("{preview}\n{}\n", resolve_line("apply", "ok"))
}

fn journal_path(env: &Env) -> std::path::PathBuf {
    env.work().join(".xcsh/journal.jsonl")
}

/// `xcsh run` over a preview and an apply, which must finish within a
/// minute (a FIFO journal once hung it for good).
fn run_session(env: &Env) -> crate::support::Output {
    run_session_on(env, "a.txt")
}

fn run_session_on(env: &Env, file: &str) -> crate::support::Output {
    let mut command = env.command(&["run", "--plugin", arg(&batch_rename()), "-"]);
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        session(env, file).as_bytes(),
    )
    .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("xcsh run hung on its journal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    crate::support::Output {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

fn refused_warning(env: &Env, why: &str) -> String {
    format!(
        "warning: cannot write the journal {}: refusing the journal: {why}; the session goes on without it\n",
        journal_path(env).display()
    )
}

#[test]
fn a_journal_linked_to_a_file_outside_is_refused_and_that_file_kept() {
    let env = Env::new();
    env.trust();
    let outside = env.home.path().join(".bashrc");
    fs::write(&outside, "# mine\n").unwrap();
    fs::create_dir_all(env.work().join(".xcsh")).unwrap();
    std::os::unix::fs::symlink(&outside, journal_path(&env)).unwrap();
    let output = run_session(&env);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stderr,
        refused_warning(&env, "it is a symbolic link")
    );
    assert_eq!(env.files(), ["old-a.txt"]);
    assert_eq!(fs::read_to_string(&outside).unwrap(), "# mine\n");

    // `xcsh journal` refuses to read through it too.
    let output = env.run(&["journal"], "");
    assert_eq!(output.code, Some(1));
    assert_eq!(
        output.stderr,
        format!(
            "error: cannot read the journal {}: refusing the journal: it is a symbolic link\n",
            journal_path(&env).display()
        )
    );
}

#[test]
fn a_journal_directory_linked_elsewhere_is_refused() {
    let env = Env::new();
    env.trust();
    let elsewhere = env.home.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, env.work().join(".xcsh")).unwrap();
    let output = run_session(&env);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stderr,
        format!(
            "warning: cannot write the journal {}: refusing the journal: its directory {} is a symbolic link; the session goes on without it\n",
            journal_path(&env).display(),
            env.work().join(".xcsh").display()
        )
    );
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_fifo_journal_neither_hangs_the_session_nor_is_written() {
    let env = Env::new();
    env.trust();
    fs::create_dir_all(env.work().join(".xcsh")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(journal_path(&env))
        .status()
        .unwrap();
    assert!(made.success());
    let output = run_session(&env);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(
        output.stderr,
        refused_warning(&env, "it is not a regular file (a device, FIFO or socket)")
    );
    assert_eq!(env.files(), ["old-a.txt"]);
}

#[test]
fn a_journal_that_is_dev_zero_is_refused_at_once() {
    let env = Env::new();
    let config = env.user_config_dir();
    fs::create_dir_all(&config).unwrap();
    fs::write(
        config.join("config.toml"),
        "[journal]\npath = \"/dev/zero\"\n",
    )
    .unwrap();
    let started = Instant::now();
    for args in [&["journal"][..], &["journal", "--verify"]] {
        let output = env.run(args, "");
        assert_eq!(output.code, Some(1), "{output:?}");
        assert!(
            output.stderr.ends_with(
                " /dev/zero: refusing the journal: it is not a regular file (a device, FIFO or socket)\n"
            ),
            "{}",
            output.stderr
        );
    }
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn an_edited_removed_or_moved_entry_is_found_by_verify() {
    let env = Env::new();
    env.trust();
    let output = run_session(&env);
    assert_eq!(output.code, Some(0), "{output:?}");
    let path = journal_path(&env);
    let verified = env.run(&["journal", "--verify"], "");
    assert_eq!(
        verified.stdout,
        format!(
            "Journal {} verifies: 2 entries chained, none edited, removed or moved.\n",
            path.display()
        )
    );
    assert_eq!(verified.code, Some(0));
    let original = fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    assert_eq!(lines.len(), 2);

    let check = |text: String, expected: &str| {
        fs::write(&path, text).unwrap();
        let output = env.run(&["journal", "--verify"], "");
        assert_eq!(output.code, Some(1), "{output:?}");
        assert_eq!(
            output.stderr,
            format!("error: journal {}: {expected}\n", path.display())
        );
    };
    // A forged "apply by person".
    check(
        original.replace("\"decidedBy\":\"model\"", "\"decidedBy\":\"person\""),
        "entry 2 breaks the chain: its seal does not match: it was edited, or the entry before it was replaced or moved",
    );
    check(
        format!("{}\n", lines[1]),
        "entry 1 breaks the chain: it is entry 2 of its chain: entries before it were removed",
    );
    check(
        format!("{}\n{}\n", lines[1], lines[0]),
        "entry 1 breaks the chain: it is entry 2 of its chain: entries before it were removed",
    );
    check(
        format!("{}\n{}\n{}\n", lines[0], lines[0], lines[1]),
        "entry 2 breaks the chain: it is entry 1 of its chain: entries were moved, repeated or inserted before it",
    );

    // Sessions go on appending to the chain they find.
    fs::write(&path, &original).unwrap();
    let output = run_session_on(&env, "b.txt");
    assert_eq!(output.code, Some(0), "{output:?}");
    let verified = env.run(&["journal", "--verify"], "");
    assert_eq!(verified.code, Some(0), "{verified:?}");
    assert!(
        verified.stdout.contains("verifies: 4 entries"),
        "{verified:?}"
    );
}

/// What `xcsh journal --verify` prints for an intact journal at `path`.
fn verifies(path: &std::path::Path, entries: usize) -> String {
    format!(
        "Journal {} verifies: {entries} entries chained, none edited, removed or moved.\n",
        path.display()
    )
}

/// The checks every untrusted checkout gets: the session says where its
/// journal went, writes nothing in `.xcsh/`, and `xcsh journal` there finds
/// and verifies what it wrote.
fn journals_to_the_users_directory(env: &Env, file: &str) {
    let output = run_session_on(env, file);
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stderr, env.journal_notice());
    let journal = env.user_journal();
    // Named after the directory and the SHA-256 of its path, in the
    // user's data directory.
    assert_eq!(
        journal.parent().unwrap(),
        env.user_data_dir().join("journals")
    );
    let name = journal.file_name().unwrap().to_str().unwrap();
    let stem = crate::support::canonical(env.work());
    let stem = stem
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .trim_start_matches('.');
    let hash = name
        .strip_prefix(&format!("{stem}-"))
        .and_then(|rest| rest.strip_suffix(".jsonl"))
        .unwrap_or_else(|| panic!("{name}"));
    assert!(
        hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "{name}"
    );

    let verified = env.run(&["journal", "--verify"], "");
    assert_eq!(verified.code, Some(0), "{verified:?}");
    assert_eq!(verified.stdout, verifies(&journal, 2));
    let shown = env.run(&["journal", "--json"], "");
    let events: Vec<String> = shown
        .stdout
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["event"].to_string())
        .collect();
    assert_eq!(events, ["\"push\"", "\"resolve\""], "{shown:?}");
}

#[test]
fn an_untrusted_checkout_that_ships_a_journal_file_keeps_it_as_shipped_until_trusted() {
    let env = Env::new();
    let shipped = env.write(".xcsh/journal.jsonl", "{\"decidedBy\":\"person\"}\n");
    journals_to_the_users_directory(&env, "a.txt");
    assert_eq!(
        fs::read_to_string(&shipped).unwrap(),
        "{\"decidedBy\":\"person\"}\n"
    );
    assert_eq!(fs::read_dir(env.work().join(".xcsh")).unwrap().count(), 1);

    // Once trusted, the project's journal is used (and what the checkout
    // shipped in it is not taken for a sealed entry).
    env.trust();
    let output = run_session_on(&env, "b.txt");
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stderr, "");
    assert_eq!(fs::read_to_string(&shipped).unwrap().lines().count(), 3);
    assert_eq!(
        fs::read_to_string(env.user_journal())
            .unwrap()
            .lines()
            .count(),
        2
    );
    let verified = env.run(&["journal", "--verify"], "");
    assert_eq!(verified.code, Some(1), "{verified:?}");
    assert_eq!(
        verified.stderr,
        format!(
            "error: journal {}: entry 1 breaks the chain: it is not a sealed journal entry (edited, or written by another program)\n",
            shipped.display()
        )
    );
}

#[test]
fn an_untrusted_checkout_whose_journal_links_outside_writes_nothing_through_it() {
    let env = Env::new();
    let outside = env.home.path().join(".bashrc");
    fs::write(&outside, "# mine\n").unwrap();
    fs::create_dir_all(env.work().join(".xcsh")).unwrap();
    std::os::unix::fs::symlink(&outside, journal_path(&env)).unwrap();
    journals_to_the_users_directory(&env, "a.txt");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "# mine\n");
    assert!(
        fs::symlink_metadata(journal_path(&env))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(env.files(), ["old-a.txt"]);
}

#[test]
fn an_untrusted_directory_without_xcsh_gets_none_made_in_it() {
    let env = Env::new();
    journals_to_the_users_directory(&env, "a.txt");
    assert!(!env.work().join(".xcsh").exists());
    // A second session appends to the same chain.
    let output = run_session_on(&env, "b.txt");
    assert_eq!(output.stderr, env.journal_notice());
    let verified = env.run(&["journal", "--verify"], "");
    assert_eq!(verified.stdout, verifies(&env.user_journal(), 4));
}
