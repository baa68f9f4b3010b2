use std::path::PathBuf;

use super::*;

struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        for (name, contents) in files {
            fs::write(root.join(name), contents).unwrap();
        }
        Self { _dir: dir, root }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn read(&self, name: &str) -> String {
        fs::read_to_string(self.path(name)).unwrap()
    }

    /// A set replacing `old` with `new` in each named file, snapshots
    /// taken now (the preview).
    fn set(&self, names: &[&str]) -> WriteSet {
        let mut set = WriteSet::new("test");
        for name in names {
            let (snapshot, bytes) = Snapshot::take(&self.path(name), *name, 1 << 20).unwrap();
            let text = String::from_utf8(bytes).unwrap().replace("old", "new");
            set.add(snapshot, text);
        }
        set
    }

    fn entries(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

#[test]
fn writes_every_file_and_leaves_no_backup() {
    let tree = Tree::new(&[("a.txt", "old a"), ("b.txt", "old b")]);
    let report = tree
        .set(&["a.txt", "b.txt"])
        .apply(StalePolicy::Refuse)
        .unwrap();
    assert_eq!(report.applied, [0, 1]);
    assert_eq!(
        (tree.read("a.txt"), tree.read("b.txt")),
        ("new a".into(), "new b".into())
    );
    assert_eq!(tree.entries(), ["a.txt", "b.txt"]);
}

#[test]
fn a_file_changed_since_the_preview_is_stale_and_nothing_is_written() {
    let tree = Tree::new(&[("a.txt", "old a"), ("b.txt", "old b")]);
    let set = tree.set(&["a.txt", "b.txt"]);
    fs::write(tree.path("b.txt"), "user edit").unwrap();
    let error = set.apply(StalePolicy::Refuse).unwrap_err();
    assert_eq!(
        error.to_string(),
        "changed since the preview, so nothing was written: b.txt. \
         Discard this action and preview again."
    );
    assert!(error.is_stale());
    assert_eq!(
        (tree.read("a.txt"), tree.read("b.txt")),
        ("old a".into(), "user edit".into())
    );
}

#[test]
fn skip_writes_the_others_and_lists_the_stale() {
    let tree = Tree::new(&[("a.txt", "old a"), ("b.txt", "old b")]);
    let set = tree.set(&["a.txt", "b.txt"]);
    fs::remove_file(tree.path("b.txt")).unwrap();
    let report = set.apply(StalePolicy::Skip).unwrap();
    assert_eq!(
        report,
        WriteReport {
            applied: vec![0],
            stale: vec![1]
        }
    );
    assert_eq!(tree.read("a.txt"), "new a");
    assert!(!tree.path("b.txt").exists());
}

#[test]
fn skip_with_every_file_stale_fails() {
    let tree = Tree::new(&[("a.txt", "old a")]);
    let set = tree.set(&["a.txt"]);
    fs::write(tree.path("a.txt"), "user edit").unwrap();
    let error = set.apply(StalePolicy::Skip).unwrap_err();
    assert!(error.is_stale(), "{error}");
}

#[test]
fn a_file_already_holding_the_new_content_counts_as_written() {
    let tree = Tree::new(&[("a.txt", "old a")]);
    let set = tree.set(&["a.txt"]);
    fs::write(tree.path("a.txt"), "new a").unwrap();
    assert_eq!(set.apply(StalePolicy::Refuse).unwrap().applied, [0]);
}

#[cfg(feature = "fault-injection")]
#[test]
fn a_write_failing_half_way_restores_the_files_written_before_it() {
    let tree = Tree::new(&[("a.txt", "old a"), ("b.txt", "old b"), ("c.txt", "old c")]);
    let set = tree.set(&["a.txt", "b.txt", "c.txt"]);
    let fault = crate::fault::fail_nth_write(&tree.root, 2);
    let error = set.apply(StalePolicy::Refuse).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "could not write b.txt: {}; no file was changed",
            crate::fault::INJECTED_MESSAGE
        )
    );
    assert_eq!(
        [tree.read("a.txt"), tree.read("b.txt"), tree.read("c.txt")],
        ["old a", "old b", "old c"]
    );
    assert_eq!(
        tree.entries(),
        ["a.txt", "b.txt", "c.txt"],
        "no backup left"
    );
    drop(fault);
    set.apply(StalePolicy::Refuse).unwrap();
    assert_eq!(tree.read("c.txt"), "new c");
}

#[cfg(unix)]
#[test]
fn hard_links_owner_and_mode_are_kept() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let tree = Tree::new(&[("a.txt", "old a")]);
    fs::set_permissions(tree.path("a.txt"), fs::Permissions::from_mode(0o751)).unwrap();
    fs::hard_link(tree.path("a.txt"), tree.path("link.txt")).unwrap();
    let before = fs::metadata(tree.path("a.txt")).unwrap();
    tree.set(&["a.txt"]).apply(StalePolicy::Refuse).unwrap();
    let after = fs::metadata(tree.path("a.txt")).unwrap();
    assert_eq!(tree.read("link.txt"), "new a");
    assert_eq!(after.ino(), before.ino());
    assert_eq!(after.permissions().mode() & 0o7777, 0o751);
    assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
    assert_eq!(after.nlink(), 2);
}

#[cfg(unix)]
#[test]
fn two_paths_of_one_file_are_refused() {
    let tree = Tree::new(&[("a.txt", "old a")]);
    fs::hard_link(tree.path("a.txt"), tree.path("b.txt")).unwrap();
    let error = tree
        .set(&["a.txt", "b.txt"])
        .apply(StalePolicy::Refuse)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "a.txt and b.txt are the same file (hard links): list it under one name only; no file was changed"
    );
    assert_eq!(tree.read("a.txt"), "old a");
}

#[cfg(unix)]
#[test]
fn two_names_of_one_file_are_refused_at_preview_time() {
    let tree = Tree::new(&[("a.txt", "old a"), ("c.txt", "old c")]);
    fs::hard_link(tree.path("a.txt"), tree.path("b.txt")).unwrap();
    let take = |name: &str| {
        Snapshot::take(&tree.path(name), name, DEFAULT_LIMIT)
            .unwrap()
            .0
    };
    let mut set = WriteSet::new("test");
    set.try_add(take("a.txt"), "new a").unwrap();
    set.try_add(take("c.txt"), "new c").unwrap();
    let refused = set.try_add(take("b.txt"), "new b").unwrap_err();
    assert_eq!(
        refused.to_string(),
        "a.txt and b.txt are the same file (hard links): list it under one name only; no file was changed"
    );
    // The same path twice is one file too.
    let again = set.try_add(take("c.txt"), "newer c").unwrap_err();
    assert!(matches!(again, WriteError::SameFile { .. }), "{again}");
    assert_eq!(set.len(), 2);
    // What the preview kept applies as usual.
    set.apply(StalePolicy::Refuse).unwrap();
    assert_eq!(
        (tree.read("b.txt"), tree.read("c.txt")),
        ("new a".to_owned(), "new c".to_owned())
    );
}

#[test]
fn write_errors_become_the_tools_error_with_their_message() {
    let error = WriteError::Stale {
        files: vec!["a.txt".to_owned()],
    };
    let message = error.to_string();
    let tool_error: xcsh_tool_types::ToolError = error.into();
    assert_eq!(tool_error.message(), message);
    assert_eq!(
        message,
        "changed since the preview, so nothing was written: a.txt. Discard this action and preview again."
    );
}

#[cfg(unix)]
#[test]
fn a_path_that_leads_elsewhere_since_the_preview_is_stale() {
    let tree = Tree::new(&[]);
    fs::create_dir(tree.path("real")).unwrap();
    fs::create_dir(tree.path("other")).unwrap();
    fs::write(tree.path("real/a.txt"), "old").unwrap();
    fs::write(tree.path("other/a.txt"), "old").unwrap();
    let set = tree.set(&["real/a.txt"]);
    fs::rename(tree.path("real"), tree.path("moved")).unwrap();
    std::os::unix::fs::symlink("other", tree.path("real")).unwrap();
    assert!(set.apply(StalePolicy::Refuse).unwrap_err().is_stale());
    assert_eq!(tree.read("other/a.txt"), "old");
}

#[cfg(unix)]
#[test]
fn a_file_replaced_by_a_named_pipe_fails_at_once() {
    let tree = Tree::new(&[("a.txt", "old")]);
    let set = tree.set(&["a.txt"]);
    fs::remove_file(tree.path("a.txt")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(tree.path("a.txt"))
        .status()
        .unwrap();
    assert!(status.success());
    let error = set.apply(StalePolicy::Refuse).unwrap_err();
    assert_eq!(
        error.to_string(),
        "could not write a.txt: not a regular file (a named pipe); no file was changed"
    );
}
