//! What an apply must never do: lose a concurrent edit, or change which
//! inode, owner or mode the file has.

use std::fs;
use std::sync::Barrier;

use serde_json::json;
use xcsh_core::Session;

use crate::support::Fixture;

const STALE: &str = "Apply failed: every file changed since the preview, nothing was written \
                     (stale: a.rs). Discard this action and run ast_edit again for a fresh preview.";

fn preview(session: &Session, rewrite: &str) {
    let result = session.execute(&xcsh_core::ToolCall::new(
        "edit",
        "ast_edit",
        json!({"pattern": "old($A)", "rewrite": rewrite, "language": "rust", "path": "a.rs"}),
    ));
    assert!(!result.is_error, "{}", result.text());
}

fn apply(session: &Session) -> xcsh_core::ToolResult {
    session.execute(&xcsh_core::ToolCall::new(
        "resolve",
        "resolve",
        json!({"action": "apply", "reason": "race"}),
    ))
}

#[test]
fn concurrent_applies_on_one_file_never_lose_an_edit() {
    let fx = Fixture::new(&[]);
    let other = Session::new(fx.path(""));
    xcsh_ast_edit::register_builtins(&other).unwrap();
    for round in 0..100 {
        fx.write("a.rs", "fn f() { old(1); }\n");
        preview(&fx.session, "first($A)");
        preview(&other, "second($A)");
        let barrier = Barrier::new(2);
        let (a, b) = std::thread::scope(|scope| {
            let a = scope.spawn(|| {
                barrier.wait();
                apply(&fx.session)
            });
            let b = scope.spawn(|| {
                barrier.wait();
                apply(&other)
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        let content = fx.read("a.rs");
        let applied = "Applied 1 replacement(s) in 1 file(s).";
        match (a.is_error, b.is_error) {
            (false, true) => {
                assert_eq!(a.text(), applied);
                assert_eq!(b.text(), STALE, "round {round}");
                assert_eq!(content, "fn f() { first(1); }\n", "round {round}");
            }
            (true, false) => {
                assert_eq!(b.text(), applied);
                assert_eq!(a.text(), STALE, "round {round}");
                assert_eq!(content, "fn f() { second(1); }\n", "round {round}");
            }
            _ => panic!(
                "round {round}: exactly one apply must succeed: {:?} / {:?}, file {content:?}",
                a.text(),
                b.text()
            ),
        }
        // The stale one stays pending, as a failed apply does: clear it.
        let loser = if a.is_error { &fx.session } else { &other };
        assert_eq!(loser.store().len(), 1);
        loser.store().clear();
    }
}

#[cfg(unix)]
#[test]
fn hard_links_owner_and_mode_survive_an_apply() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    let fx = Fixture::new(&[("a.rs", "fn f() { old(1); }\n")]);
    fs::hard_link(fx.path("a.rs"), fx.path("twin.txt")).unwrap();
    fs::set_permissions(fx.path("a.rs"), fs::Permissions::from_mode(0o640)).unwrap();
    // Where the test runs as root, give the file another owner first: a
    // write-and-rename would hand it to root.
    let other_owner = std::os::unix::fs::chown(fx.path("a.rs"), Some(4242), Some(4343)).is_ok();
    let before = fs::metadata(fx.path("a.rs")).unwrap();

    preview(&fx.session, "new($A)");
    assert_eq!(
        fx.resolve("apply", "ok").text(),
        "Applied 1 replacement(s) in 1 file(s)."
    );

    let after = fs::metadata(fx.path("a.rs")).unwrap();
    assert_eq!(fx.read("twin.txt"), "fn f() { new(1); }\n");
    assert_eq!(after.ino(), before.ino());
    assert_eq!(after.nlink(), 2);
    assert_eq!(after.mode() & 0o7777, 0o640);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    if other_owner {
        assert_eq!((after.uid(), after.gid()), (4242, 4343));
    }
    // The backup kept during the write is gone.
    let mut names: Vec<String> = fs::read_dir(fx.path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.rs", "twin.txt"]);
}

#[test]
fn a_shorter_rewrite_leaves_no_old_tail() {
    let fx = Fixture::new(&[("a.rs", "fn f() { old(1); }\n// tail\n")]);
    fx.ast_edit(json!({"pattern": "old($A)", "rewrite": "$A", "language": "rust"}));
    fx.resolve("apply", "ok");
    assert_eq!(fx.read("a.rs"), "fn f() { 1; }\n// tail\n");
}
