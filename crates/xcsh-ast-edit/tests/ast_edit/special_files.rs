//! Files that are not source: named pipes, devices, and files too large,
//! binary or not UTF-8. A file the call names is an error saying why; one
//! a directory walk meets is skipped and listed.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use xcsh_ast_edit::AstEditOptions;
use xcsh_core::ToolResult;

use crate::support::Fixture;

fn rename_old(path: &str) -> Value {
    json!({"pattern": "old($A)", "rewrite": "new($A)", "language": "rust", "path": path})
}

/// Runs `ast_edit` with `arguments` on a thread and fails the test if it
/// has not answered within five seconds, so a regression that blocks on a
/// special file fails instead of hanging the suite.
fn edit_within_seconds(fx: Fixture, arguments: Value) -> (Fixture, ToolResult) {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let result = fx.ast_edit(arguments);
        let _ = send.send((fx, result));
    });
    receive
        .recv_timeout(Duration::from_secs(5))
        .expect("ast_edit did not answer within 5 s: it blocks on a special file")
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn a_named_pipe_named_explicitly_is_an_error_at_once() {
    let fx = Fixture::new(&[]);
    mkfifo(&fx.path("pipe.rs"));
    let (fx, result) = edit_within_seconds(fx, rename_old("pipe.rs"));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "cannot edit pipe.rs: not a regular file (a named pipe)"
    );
    assert!(fx.pending().is_empty());
}

#[cfg(unix)]
#[test]
fn a_named_pipe_in_a_walk_is_passed_over_at_once() {
    let fx = Fixture::new(&[("ok.rs", "fn f() { old(1); }\n")]);
    mkfifo(&fx.path("pipe.rs"));
    let (fx, result) = edit_within_seconds(fx, rename_old("."));
    assert!(
        result
            .text()
            .starts_with("AST Edit: 1 replacement in 1 file\n"),
        "{}",
        result.text()
    );
    assert_eq!(result.details.unwrap()["filesSearched"], 1);
    assert_eq!(fx.pending().len(), 1);
}

#[cfg(unix)]
#[test]
fn dev_zero_is_an_error_at_once_even_where_outside_paths_are_allowed() {
    let allowed = AstEditOptions::default().allow_outside_root(true);
    let fx = Fixture::with_options(&[], allowed);
    let (fx, result) = edit_within_seconds(fx, rename_old("/dev/zero"));
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "cannot edit /dev/zero: not a regular file (a character device)"
    );

    // By default it is not even looked at: it is outside the working directory.
    let (_, result) = edit_within_seconds(Fixture::new(&[]), rename_old("/dev/zero"));
    assert_eq!(
        result.text(),
        "path /dev/zero is outside the working directory: it resolves to /dev/zero \
         (start xcsh with --allow-outside-root to allow this)"
    );
    assert!(fx.pending().is_empty());
}

#[test]
fn a_named_file_too_large_binary_or_not_utf8_is_an_error_saying_why() {
    let big = format!("fn f() {{ old(1); }}\n{}", "//\n".repeat(800_000));
    let fx = Fixture::new(&[("big.rs", &big), ("bin.rs", "fn f() { old(1); }\0")]);
    std::fs::write(fx.path("latin1.rs"), b"fn f() { old(1); } // caf\xe9\n").unwrap();
    for (file, why) in [
        ("big.rs", "file too large (more than 2097152 bytes)"),
        ("bin.rs", "binary file"),
        ("latin1.rs", "not UTF-8 text"),
    ] {
        let result = fx.ast_edit(rename_old(file));
        assert!(result.is_error, "{file}");
        assert_eq!(result.text(), format!("cannot edit {file}: {why}"));
    }
    assert!(fx.pending().is_empty());
}

#[test]
fn files_a_walk_skips_are_listed_even_when_nothing_matched() {
    let fx = Fixture::new(&[("bin.rs", "fn f() { old(1); }\0"), ("ok.rs", "fn f() {}\n")]);
    let result = fx.ast_edit(rename_old("."));
    assert!(!result.is_error);
    assert_eq!(
        result.text(),
        "No replacements made\n\nSkipped:\n  bin.rs: binary file"
    );
    assert!(fx.pending().is_empty());
}
