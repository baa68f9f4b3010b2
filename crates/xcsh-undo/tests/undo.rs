//! Undo through a real session: an action's apply writes, deletes, renames
//! and changes modes; undo puts the tree back byte for byte.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use xcsh_core::{Session, ToolCall};
use xcsh_undo::{Limits, Store, UndoError, UndoObserver};

mod support;
use support::{Fixture, apply};

/// Every file under `dir` (but `.xcsh/`) with its bytes and mode.
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
            if name == ".xcsh" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                files.insert(format!("{name}/"), (Vec::new(), meta.permissions().mode()));
                stack.push(path);
            } else {
                files.insert(
                    name,
                    (std::fs::read(&path).unwrap(), meta.permissions().mode()),
                );
            }
        }
    }
    files
}

fn fixture() -> Fixture {
    let temp = tempfile::tempdir().unwrap();
    let (root, work) = (temp.path().join("state"), temp.path().join("work"));
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::write(work.join("keep.txt"), "keep\n").unwrap();
    std::fs::write(work.join("edit.rs"), "fn old() {}\n").unwrap();
    std::fs::write(work.join("gone.txt"), "to be deleted\n").unwrap();
    std::fs::write(work.join("src/draft.md"), "draft\n").unwrap();
    std::fs::write(work.join("run.sh"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(work.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(work.join(".gitignore"), "ignored.log\n").unwrap();
    std::fs::write(work.join("ignored.log"), "not snapshotted\n").unwrap();
    Fixture::new(temp, root, work)
}

/// Writes, deletes, renames (into a new directory) and flips modes.
fn everything(cwd: &Path) {
    std::fs::write(cwd.join("edit.rs"), "fn new() {}\n").unwrap();
    std::fs::remove_file(cwd.join("gone.txt")).unwrap();
    std::fs::create_dir_all(cwd.join("docs/final")).unwrap();
    std::fs::rename(cwd.join("src/draft.md"), cwd.join("docs/final/draft.md")).unwrap();
    std::fs::write(cwd.join("new.txt"), "new\n").unwrap();
    std::fs::set_permissions(cwd.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::set_permissions(cwd.join("keep.txt"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(cwd.join("ignored.log"), "changed, not undone\n").unwrap();
}

fn store(fixture: &Fixture) -> Store {
    Store::open(&fixture.root, &fixture.work, Limits::default()).unwrap()
}

#[test]
fn an_apply_that_writes_deletes_renames_and_chmods_is_undone_byte_for_byte() {
    let fixture = fixture();
    let before = tree(&fixture.work);
    apply(&fixture.session, "Everything", everything);
    assert_ne!(tree(&fixture.work), before);
    let store = store(&fixture);
    let plan = store.plan(None).unwrap();
    assert_eq!(plan.apply.label, "Everything");
    let described: Vec<String> = plan.apply.changes.iter().map(|c| c.describe()).collect();
    assert_eq!(
        described,
        [
            "renamed src/draft.md → docs/final/draft.md",
            "modified edit.rs",
            "deleted gone.txt",
            "modified keep.txt",
            "created new.txt",
            "modified run.sh",
        ]
    );
    assert!(plan.stale.is_empty());
    let undo = store.undo(&plan, false, "person").unwrap();
    assert_eq!(undo.removed, ["docs/final/draft.md", "new.txt"]);
    let mut after = tree(&fixture.work);
    // The ignored file is not covered: it keeps what the apply wrote.
    assert_eq!(
        after.remove("ignored.log").unwrap().0,
        b"changed, not undone\n"
    );
    let mut expected = before;
    expected.remove("ignored.log");
    assert_eq!(after, expected);
    assert!(matches!(store.plan(None), Err(UndoError::AllUndone(_))));
    // The history still has the apply, with its undo.
    let history = store.history().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(
        history[0].1.as_ref().map(|undo| undo.undid),
        Some(history[0].0.id)
    );
    assert!(matches!(
        store.plan(Some(undo.undid)),
        Err(UndoError::AlreadyUndone(1))
    ));
}

#[test]
fn a_file_edited_after_the_apply_is_refused_and_listed_and_force_restores_it() {
    let fixture = fixture();
    let before = tree(&fixture.work);
    apply(&fixture.session, "Edit", |cwd| {
        std::fs::write(cwd.join("edit.rs"), "fn new() {}\n").unwrap();
        std::fs::write(cwd.join("keep.txt"), "changed\n").unwrap();
    });
    std::fs::write(fixture.work.join("edit.rs"), "fn mine() {}\n").unwrap();
    let store = store(&fixture);
    let plan = store.plan(None).unwrap();
    assert_eq!(plan.stale, ["edit.rs"]);
    let refused = store.undo(&plan, false, "person").unwrap_err();
    assert_eq!(
        refused.to_string(),
        "Undo refused: 1 file changed since apply 1: edit.rs. Nothing was restored; --force restores them anyway."
    );
    assert_eq!(
        std::fs::read_to_string(fixture.work.join("keep.txt")).unwrap(),
        "changed\n"
    );
    let undo = store.undo(&plan, true, "person").unwrap();
    assert!(undo.forced);
    assert_eq!(tree(&fixture.work), before);
}

#[test]
fn undo_by_id_is_refused_while_a_later_apply_of_the_same_files_stands() {
    let fixture = fixture();
    apply(&fixture.session, "First", |cwd| {
        std::fs::write(cwd.join("edit.rs"), "one\n").unwrap();
    });
    apply(&fixture.session, "Second", |cwd| {
        std::fs::write(cwd.join("edit.rs"), "two\n").unwrap();
    });
    apply(&fixture.session, "Elsewhere", |cwd| {
        std::fs::write(cwd.join("keep.txt"), "three\n").unwrap();
    });
    let store = store(&fixture);
    let listed: Vec<(u64, String)> = store
        .undoable()
        .unwrap()
        .into_iter()
        .map(|apply| (apply.id, apply.label))
        .collect();
    assert_eq!(
        listed,
        [
            (3, "Elsewhere".into()),
            (2, "Second".into()),
            (1, "First".into())
        ]
    );
    assert_eq!(
        store.plan(Some(1)).unwrap_err().to_string(),
        "Undo refused: apply 2 (\"Second\") came later and changed the same files: edit.rs. Undo it first."
    );
    assert!(matches!(store.plan(Some(9)), Err(UndoError::UnknownId(9))));
    let second = store.plan(Some(2)).unwrap();
    store.undo(&second, false, "person").unwrap();
    let first = store.plan(Some(1)).unwrap();
    store.undo(&first, false, "person").unwrap();
    assert_eq!(
        std::fs::read_to_string(fixture.work.join("edit.rs")).unwrap(),
        "fn old() {}\n"
    );
    assert_eq!(
        std::fs::read_to_string(fixture.work.join("keep.txt")).unwrap(),
        "three\n"
    );
}

#[test]
fn the_next_result_after_an_undo_carries_a_reminder_for_the_model() {
    let fixture = fixture();
    apply(&fixture.session, "Edit", |cwd| {
        std::fs::write(cwd.join("edit.rs"), "fn new() {}\n").unwrap();
    });
    fixture.session.take_messages();
    let store = store(&fixture);
    store
        .undo(&store.plan(None).unwrap(), false, "person")
        .unwrap();
    fixture.session.execute(&ToolCall::new(
        "c",
        "resolve",
        json!({"action": "apply", "reason": "r"}),
    ));
    let messages = fixture.session.take_messages();
    assert_eq!(messages.len(), 1);
    assert!(messages[0].hidden);
    assert_eq!(
        messages[0].text,
        "<system-reminder>\nA person undid apply 1 (\"Edit\"): restored edit.rs. Those files are as they were before that apply: read them again before relying on what you saw.\n</system-reminder>"
    );
    fixture.session.execute(&ToolCall::new(
        "c",
        "resolve",
        json!({"action": "apply", "reason": "r"}),
    ));
    assert!(fixture.session.take_messages().is_empty(), "said once");
}

#[test]
fn retention_keeps_the_newest_applies_and_undo_still_works_after_cleanup() {
    let temp = tempfile::tempdir().unwrap();
    let (root, work) = (temp.path().join("state"), temp.path().join("work"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(work.join("n.txt"), "0").unwrap();
    let session = Session::new(&work);
    let config = Limits {
        keep: 2,
        ..Limits::default()
    };
    session.set_apply_observer(Arc::new(UndoObserver::new(&root, &work, config)));
    for n in 1..=4 {
        apply(&session, &format!("Write {n}"), move |cwd| {
            std::fs::write(cwd.join("n.txt"), n.to_string()).unwrap();
        });
    }
    let store = Store::open(&root, &work, config).unwrap();
    let ids: Vec<u64> = store.undoable().unwrap().iter().map(|a| a.id).collect();
    assert_eq!(
        ids,
        [4, 3, 2, 1],
        "cleaned when a session starts, not per apply"
    );
    let _next_session = UndoObserver::new(&root, &work, config);
    let ids: Vec<u64> = store.undoable().unwrap().iter().map(|a| a.id).collect();
    assert_eq!(ids, [4, 3]);
    store
        .undo(&store.plan(None).unwrap(), false, "person")
        .unwrap();
    store
        .undo(&store.plan(None).unwrap(), false, "person")
        .unwrap();
    assert_eq!(std::fs::read_to_string(work.join("n.txt")).unwrap(), "2");
}

#[test]
fn an_apply_that_changes_nothing_records_no_snapshot() {
    let fixture = fixture();
    apply(&fixture.session, "Nothing", |_| {});
    assert!(store(&fixture).undoable().unwrap().is_empty());
}

#[test]
fn the_first_snapshot_taken_after_a_push_sees_edits_made_before_the_apply() {
    let temp = tempfile::tempdir().unwrap();
    let (root, work) = (temp.path().join("state"), temp.path().join("work"));
    std::fs::create_dir_all(work.join("src")).unwrap();
    std::fs::write(work.join("src/a.rs"), "first\n").unwrap();
    let session = Session::new(&work);
    let observer = Arc::new(UndoObserver::new(&root, &work, Limits::default()));
    session.set_apply_observer(Arc::clone(&observer) as Arc<dyn xcsh_core::ApplyObserver>);
    xcsh_core::ApplyObserver::action_pushed(observer.as_ref());
    observer.settle();
    // After the background snapshot, before the apply: the person edits a
    // file, makes a directory with a file in it, and deletes nothing.
    std::fs::write(work.join("src/a.rs"), "edited by the person\n").unwrap();
    std::fs::create_dir_all(work.join("new/deeper")).unwrap();
    std::fs::write(work.join("new/deeper/b.rs"), "b\n").unwrap();
    let before = tree(&work);
    apply(&session, "Edit both", |cwd| {
        std::fs::write(cwd.join("src/a.rs"), "by the apply\n").unwrap();
        std::fs::write(cwd.join("new/deeper/b.rs"), "by the apply\n").unwrap();
        std::fs::write(cwd.join("new/deeper/c.rs"), "new\n").unwrap();
    });
    let store = Store::open(&root, &work, Limits::default()).unwrap();
    let plan = store.plan(None).unwrap();
    let described: Vec<String> = plan.apply.changes.iter().map(|c| c.describe()).collect();
    assert_eq!(
        described,
        [
            "modified new/deeper/b.rs",
            "created new/deeper/c.rs",
            "modified src/a.rs"
        ]
    );
    store.undo(&plan, false, "person").unwrap();
    assert_eq!(tree(&work), before);
}

#[test]
fn git_directories_and_nested_repositories_are_left_out() {
    let temp = tempfile::tempdir().unwrap();
    let (root, work) = (temp.path().join("state"), temp.path().join("work"));
    std::fs::create_dir_all(work.join(".git/refs")).unwrap();
    std::fs::write(work.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::create_dir_all(work.join("vendor/lib/.git")).unwrap();
    std::fs::write(work.join("vendor/lib/x.rs"), "x\n").unwrap();
    std::fs::write(work.join("main.rs"), "fn main() {}\n").unwrap();
    let session = Session::new(&work);
    session.set_apply_observer(Arc::new(UndoObserver::new(&root, &work, Limits::default())));
    for (label, text) in [("First", "one\n"), ("Second", "two\n")] {
        apply(&session, label, move |cwd| {
            std::fs::write(cwd.join(".git/HEAD"), text).unwrap();
            std::fs::write(cwd.join(".git/refs/new"), text).unwrap();
            std::fs::write(cwd.join("vendor/lib/x.rs"), text).unwrap();
            std::fs::write(cwd.join("vendor/lib/y.rs"), text).unwrap();
            std::fs::write(cwd.join("main.rs"), text).unwrap();
        });
    }
    let store = Store::open(&root, &work, Limits::default()).unwrap();
    for apply in store.undoable().unwrap() {
        let described: Vec<String> = apply.changes.iter().map(|c| c.describe()).collect();
        assert_eq!(described, ["modified main.rs"], "{}", apply.label);
    }
}

/// Every file under `dir` (but `.xcsh/`) with its mode and modification
/// time.
fn stamps(dir: &Path) -> BTreeMap<String, (u32, std::time::SystemTime)> {
    tree(dir)
        .into_iter()
        .filter(|(name, _)| !name.ends_with('/'))
        .map(|(name, (_, mode))| {
            let modified = std::fs::symlink_metadata(dir.join(&name))
                .unwrap()
                .modified()
                .unwrap();
            (name, (mode, modified))
        })
        .collect()
}

#[test]
fn modes_and_times_come_back_as_the_snapshot_saw_them() {
    let fixture = fixture();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_500_000_000);
    for (name, mode) in [
        ("private.txt", 0o600),
        ("group.txt", 0o640),
        ("tool.sh", 0o755),
    ] {
        let path = fixture.work.join(name);
        std::fs::write(&path, format!("{name}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let (before, times) = (tree(&fixture.work), stamps(&fixture.work));
    apply(&fixture.session, "Modes", |cwd| {
        std::fs::write(cwd.join("private.txt"), "rewritten\n").unwrap();
        std::fs::remove_file(cwd.join("group.txt")).unwrap();
        std::fs::create_dir_all(cwd.join("bin")).unwrap();
        std::fs::rename(cwd.join("tool.sh"), cwd.join("bin/tool.sh")).unwrap();
    });
    let store = store(&fixture);
    let plan = store.plan(None).unwrap();
    store.undo(&plan, false, "person").unwrap();
    assert_eq!(tree(&fixture.work), before);
    assert_eq!(stamps(&fixture.work), times);
}

#[test]
fn a_link_put_on_the_way_since_the_snapshot_is_refused_and_nothing_is_written() {
    let fixture = fixture();
    let outside = fixture.root.parent().unwrap().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::create_dir(fixture.work.join("sub")).unwrap();
    std::fs::write(
        fixture.work.join("sub/authorized_keys"),
        "ssh-ed25519 attacker\n",
    )
    .unwrap();
    apply(&fixture.session, "Delete", |cwd| {
        std::fs::remove_file(cwd.join("sub/authorized_keys")).unwrap();
        std::fs::write(cwd.join("edit.rs"), "fn new() {}\n").unwrap();
    });
    std::fs::remove_dir(fixture.work.join("sub")).unwrap();
    std::os::unix::fs::symlink(&outside, fixture.work.join("sub")).unwrap();
    let store = store(&fixture);
    let plan = store.plan(None).unwrap();
    assert_eq!(
        plan.linked,
        [("sub/authorized_keys".to_owned(), "sub".to_owned())]
    );
    for force in [false, true] {
        assert_eq!(
            store.undo(&plan, force, "person").unwrap_err().to_string(),
            "Undo refused: cannot restore sub/authorized_keys safely: sub is now a symbolic link, not the directory the snapshot recorded. Nothing was restored, with or without --force; put the directory back and undo again."
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        assert_eq!(
            std::fs::read_to_string(fixture.work.join("edit.rs")).unwrap(),
            "fn new() {}\n",
            "nothing is restored"
        );
    }
    // With the directory back, the undo goes through.
    std::fs::remove_file(fixture.work.join("sub")).unwrap();
    std::fs::create_dir(fixture.work.join("sub")).unwrap();
    let plan = store.plan(None).unwrap();
    store.undo(&plan, false, "person").unwrap();
    assert_eq!(
        std::fs::read_to_string(fixture.work.join("sub/authorized_keys")).unwrap(),
        "ssh-ed25519 attacker\n"
    );
}
