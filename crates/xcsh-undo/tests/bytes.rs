//! Paths are bytes: files whose names are not UTF-8, in a working
//! directory whose name is not either, are logged with each such byte as
//! `\xNN`, shown so, and undone to the very bytes (names, contents,
//! modes); a log written before (plain UTF-8 names) reads and undoes the
//! same.

#![cfg(unix)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use xcsh_core::Session;
use xcsh_undo::{Limits, LogLine, Store, UndoError, UndoObserver};

mod support;
use support::{Fixture, apply};

/// The path `bytes` names.
fn raw(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(bytes))
}

/// Every file and directory under `dir`, by name as bytes, with its bytes
/// and mode.
fn tree(dir: &Path) -> BTreeMap<Vec<u8>, (Vec<u8>, u32)> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(dir)
                .unwrap()
                .as_os_str()
                .as_bytes()
                .to_vec();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode();
            if meta.is_dir() {
                files.insert([name, b"/".to_vec()].concat(), (Vec::new(), mode));
                stack.push(path);
            } else {
                files.insert(name, (std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    files
}

/// A working directory named `caf\xe9` holding `\xff.txt` (mode 640),
/// `\xff.rs` and `d\xe9/x\xfe` (mode 600).
fn fixture() -> Fixture {
    let temp = tempfile::tempdir().unwrap();
    let (root, work) = (temp.path().join("state"), temp.path().join(raw(b"caf\xe9")));
    std::fs::create_dir_all(work.join(raw(b"d\xe9"))).unwrap();
    for (name, content, mode) in [
        (&b"\xff.txt"[..], "renamed\n", 0o640),
        (b"\xff.rs", "fn old() {}\n", 0o644),
        (b"d\xe9/x\xfe", "deleted\n", 0o600),
    ] {
        let path = work.join(raw(name));
        std::fs::write(&path, content).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    Fixture::new(temp, root, work)
}

/// Renames `\xff.txt`, edits `\xff.rs`, deletes `d\xe9/x\xfe`, creates
/// `new\xfd`.
fn bytes_apply(cwd: &Path) {
    std::fs::rename(cwd.join(raw(b"\xff.txt")), cwd.join(raw(b"\xff-old.txt"))).unwrap();
    std::fs::write(cwd.join(raw(b"\xff.rs")), "fn new() {}\n").unwrap();
    std::fs::remove_file(cwd.join(raw(b"d\xe9/x\xfe"))).unwrap();
    std::fs::write(cwd.join(raw(b"new\xfd")), "new\n").unwrap();
}

/// The log's lines as JSON.
fn log(store: &Store) -> Vec<Value> {
    std::fs::read_to_string(store.dir().join("log.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn names_that_are_not_utf8_are_logged_as_escapes_shown_so_and_undone_to_their_bytes() {
    let fixture = fixture();
    let before = tree(&fixture.work);
    apply(&fixture.session, "Bytes", bytes_apply);
    assert_ne!(tree(&fixture.work), before);
    let store = Store::open(&fixture.root, &fixture.work, Limits::default()).unwrap();
    let changes = &log(&store)[0]["changes"];
    let logged: Vec<(&str, &str, Option<&str>)> = changes
        .as_array()
        .unwrap()
        .iter()
        .map(|change| {
            (
                change["kind"].as_str().unwrap(),
                change["path"].as_str().unwrap(),
                change["from"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        logged,
        [
            ("renamed", r"\xff-old.txt", Some(r"\xff.txt")),
            ("modified", r"\xff.rs", None),
            ("deleted", r"d\xe9/x\xfe", None),
            ("created", r"new\xfd", None),
        ]
    );
    // The mode the snapshot saw is logged for the names as bytes too.
    assert_eq!(changes[0]["beforeMeta"]["mode"], 0o640);
    assert_eq!(changes[2]["beforeMeta"]["mode"], 0o600);

    let plan = store.plan(None).unwrap();
    let described: Vec<String> = plan.apply.changes.iter().map(|c| c.describe()).collect();
    assert_eq!(
        described,
        [
            r"renamed \xff.txt → \xff-old.txt",
            r"modified \xff.rs",
            r"deleted d\xe9/x\xfe",
            r"created new\xfd",
        ]
    );
    assert!(plan.stale.is_empty(), "{:?}", plan.stale);
    let undone = store.undo(&plan, false, "person").unwrap();
    assert_eq!(tree(&fixture.work), before);
    assert_eq!(undone.restored, [r"\xff.txt", r"\xff.rs", r"d\xe9/x\xfe"]);
    assert_eq!(undone.removed, [r"\xff-old.txt", r"new\xfd"]);
    assert_eq!(xcsh_undo::shown(&undone.removed[1]), r"new\xfd");
}

#[test]
fn a_file_named_with_bytes_changed_since_the_apply_is_refused_by_its_escaped_name() {
    let fixture = fixture();
    apply(&fixture.session, "Edit", |cwd| {
        std::fs::write(cwd.join(raw(b"\xff.rs")), "fn new() {}\n").unwrap();
    });
    std::fs::write(fixture.work.join(raw(b"\xff.rs")), "fn mine() {}\n").unwrap();
    let store = Store::open(&fixture.root, &fixture.work, Limits::default()).unwrap();
    let plan = store.plan(None).unwrap();
    assert_eq!(plan.stale, [r"\xff.rs"]);
    let error = store.undo(&plan, false, "person").unwrap_err();
    assert!(matches!(error, UndoError::Stale { .. }));
    assert_eq!(
        error.to_string(),
        r"Undo refused: 1 file changed since apply 1: \xff.rs. Nothing was restored; --force restores them anyway."
    );
    assert_eq!(
        std::fs::read(fixture.work.join(raw(b"\xff.rs"))).unwrap(),
        b"fn mine() {}\n"
    );
    // --force writes the file of that name, not one named `\xff.rs` or `�.rs`.
    store.undo(&plan, true, "person").unwrap();
    assert_eq!(
        std::fs::read(fixture.work.join(raw(b"\xff.rs"))).unwrap(),
        b"fn old() {}\n"
    );
    let mut names: Vec<Vec<u8>> = tree(&fixture.work).into_keys().collect();
    names.sort();
    assert_eq!(
        names,
        [&b"d\xe9/"[..], b"d\xe9/x\xfe", b"\xff.rs", b"\xff.txt"]
    );
}

#[test]
fn a_log_written_before_with_plain_utf8_names_reads_and_undoes_the_same() {
    let temp = tempfile::tempdir().unwrap();
    let (root, work) = (temp.path().join("state"), temp.path().join("work"));
    std::fs::create_dir_all(work.join("sous-dossier")).unwrap();
    std::fs::write(work.join("sous-dossier/garde.md"), "garde\n").unwrap();
    std::fs::write(work.join("café.md"), "café\n").unwrap();
    std::fs::write(work.join(r"back\slash.md"), "slash\n").unwrap();
    let session = Session::new(&work);
    session.set_apply_observer(Arc::new(UndoObserver::new(&root, &work, Limits::default())));
    let before = tree(&work);
    apply(&session, "Rename", |cwd| {
        std::fs::rename(cwd.join("café.md"), cwd.join("sous-dossier/thé.md")).unwrap();
        std::fs::write(cwd.join(r"back\slash.md"), "changed\n").unwrap();
    });
    let store = Store::open(&root, &work, Limits::default()).unwrap();
    // The record as an earlier version wrote it: the names as plain UTF-8
    // strings (as now), no `beforeMeta`.
    let mut record = log(&store).remove(0);
    let changes = record["changes"].as_array_mut().unwrap();
    for change in changes.iter_mut() {
        change.as_object_mut().unwrap().remove("beforeMeta");
    }
    assert_eq!(
        changes
            .iter()
            .map(|change| (change["path"].as_str().unwrap(), change["from"].as_str()))
            .collect::<Vec<_>>(),
        [
            (r"back\slash.md", None),
            ("sous-dossier/thé.md", Some("café.md")),
        ]
    );
    std::fs::write(store.dir().join("log.jsonl"), format!("{record}\n")).unwrap();
    let LogLine::Apply(read) = &store.lines().unwrap()[0] else {
        panic!("an apply");
    };
    assert_eq!(read.changes[1].path, "sous-dossier/thé.md");
    let plan = store.plan(None).unwrap();
    let described: Vec<String> = plan.apply.changes.iter().map(|c| c.describe()).collect();
    assert_eq!(
        described,
        [
            r"modified back\slash.md",
            "renamed café.md → sous-dossier/thé.md"
        ]
    );
    assert!(plan.stale.is_empty(), "{:?}", plan.stale);
    store.undo(&plan, false, "person").unwrap();
    // Contents and names as before (an earlier record has no modes: 644).
    assert_eq!(tree(&work), before);
}

#[test]
fn a_utf8_name_that_holds_a_backslash_escape_itself_is_undone_as_itself() {
    let fixture = fixture();
    let literal = fixture.work.join(r"a\xe9.md");
    std::fs::write(&literal, "literal\n").unwrap();
    std::fs::set_permissions(&literal, std::fs::Permissions::from_mode(0o600)).unwrap();
    let before = tree(&fixture.work);
    apply(&fixture.session, "Edit", |cwd| {
        std::fs::write(cwd.join(r"a\xe9.md"), "changed\n").unwrap();
    });
    let store = Store::open(&fixture.root, &fixture.work, Limits::default()).unwrap();
    assert_eq!(log(&store)[0]["changes"][0]["beforeMeta"]["mode"], 0o600);
    let plan = store.plan(None).unwrap();
    assert!(plan.stale.is_empty(), "{:?}", plan.stale);
    assert_eq!(plan.ops[0].name, Path::new(r"a\xe9.md"));
    store.undo(&plan, false, "person").unwrap();
    // The file of that very name back, none named `a` and the byte 0xE9.
    assert_eq!(tree(&fixture.work), before);
}
