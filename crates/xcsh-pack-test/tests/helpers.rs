//! The helpers a destructive pack builds on, each fed the bad input: paths
//! confined to the working directory, writes checked against the preview
//! and made all or none, and the pack's own configuration. The pack is a
//! small text-replace pack, as an author would write it from the guide.

use std::fs;
use std::path::Path;

use xcsh_pack_test::{INJECTED_MESSAGE, PackTest, PackTestBuilder, json};
use xcsh_plugin_api::fs::{Snapshot, StalePolicy, WriteSet};
use xcsh_plugin_api::prelude::*;

/// The pack's configuration, `[packs.text-replace]`.
#[params]
#[serde(default)]
struct Limits {
    /// At most this many files per preview.
    max_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_files: 100 }
    }
}

#[params]
struct Replace {
    /// Text to find.
    find: String,
    /// What to put instead.
    replace: String,
    /// The files, relative to the working directory.
    files: Vec<String>,
}

fn tools(host: &Host) -> Result<ToolPack, ToolError> {
    let limits: Limits = host.config()?;
    let replace = FnTool::new(
        "replace_preview",
        "Replace text",
        "Previews replacing text in files; resolve applies it to all or none.",
        move |p: Replace, ctx: &ToolContext<'_>| {
            if p.files.len() > limits.max_files {
                return Err(ToolError::new(format!(
                    "{} files, more than max_files ({})",
                    p.files.len(),
                    limits.max_files
                )));
            }
            let mut set = WriteSet::new("text-replace");
            for file in &p.files {
                let path = ctx.confined_path(file)?;
                let (snapshot, bytes) = Snapshot::take(&path, file.as_str(), 1 << 20)
                    .map_err(|e| ToolError::new(format!("cannot read {file}: {e}")))?;
                let text = String::from_utf8_lossy(&bytes).replace(&p.find, &p.replace);
                set.add(snapshot, text);
            }
            let count = set.len();
            ctx.push_pending_action(PendingAction::new(
                format!("Replace in {count} files"),
                move |_| {
                    set.apply(StalePolicy::Refuse)
                        .map_err(|e| ToolError::new(e.to_string()))?;
                    Ok(ToolOutput::text(format!("Replaced in {count} files.")))
                },
            ))?;
            Ok(ToolOutput::text(format!("would replace in {count} files")))
        },
    )
    .with_hints(ToolHints::PREVIEW);
    Ok(ToolPack::new().with_tool(replace))
}

fn preview(pack: &PackTest, files: &[&str]) -> xcsh_pack_test::ToolResult {
    pack.call(
        "replace_preview",
        json!({"find": "old", "replace": "new", "files": files}),
    )
}

fn read(pack: &PackTest, file: &str) -> String {
    fs::read_to_string(pack.dir().join(file)).unwrap()
}

fn outside(path: &str, resolved: &Path) -> String {
    format!(
        "path {path} is outside the working directory: it resolves to {} \
         (start xcsh with --allow-outside-root to allow this)",
        resolved.display()
    )
}

fn canonical(path: &Path) -> std::path::PathBuf {
    fs::canonicalize(path).unwrap()
}

#[test]
fn parent_absolute_and_linked_paths_out_are_refused_with_the_hosts_message() {
    let pack = PackTest::new("text-replace", tools).unwrap();
    let root = canonical(pack.dir());
    let elsewhere = tempfile::tempdir().unwrap();
    let elsewhere = canonical(elsewhere.path());
    fs::write(elsewhere.join("secret.txt"), "old").unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("out")).unwrap();

    let cases = [
        ("../x", root.parent().unwrap().join("x")),
        ("/etc/hostname", "/etc/hostname".into()),
        ("out/secret.txt", elsewhere.join("secret.txt")),
    ];
    for (path, resolved) in cases {
        let result = preview(&pack, &[path]);
        assert!(result.is_error, "{path}");
        assert_eq!(result.text(), outside(path, &resolved));
    }
    assert!(pack.pending_labels().is_empty());
    assert_eq!(
        fs::read_to_string(elsewhere.join("secret.txt")).unwrap(),
        "old"
    );
}

#[test]
fn allow_outside_root_lets_a_link_out_through() {
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(elsewhere.path().join("notes.txt"), "old notes").unwrap();
    let pack = PackTestBuilder::new("text-replace", tools)
        .allow_outside_root()
        .build()
        .unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), pack.dir().join("out")).unwrap();
    assert!(!preview(&pack, &["out/notes.txt"]).is_error);
    assert!(!pack.apply("ok").is_error);
    assert_eq!(
        fs::read_to_string(elsewhere.path().join("notes.txt")).unwrap(),
        "new notes"
    );
}

#[test]
fn a_file_changed_between_preview_and_apply_is_stale_and_nothing_is_written() {
    let pack = PackTest::new("text-replace", tools).unwrap();
    pack.write("a.txt", "old a");
    pack.write("b.txt", "old b");
    assert!(!preview(&pack, &["a.txt", "b.txt"]).is_error);
    pack.write("b.txt", "edited by the user");

    let result = pack.apply("go");
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        "Apply failed: changed since the preview, so nothing was written: b.txt. \
         Discard this action and preview again."
    );
    assert_eq!(read(&pack, "a.txt"), "old a");
    assert_eq!(read(&pack, "b.txt"), "edited by the user");
    assert_eq!(pack.pending_labels(), ["Replace in 2 files"]);
}

#[test]
fn a_write_failing_half_way_changes_no_file_and_keeps_the_action() {
    let pack = PackTest::new("text-replace", tools).unwrap();
    for name in ["a.txt", "b.txt", "c.txt"] {
        pack.write(name, format!("old {name}"));
    }
    assert!(!preview(&pack, &["a.txt", "b.txt", "c.txt"]).is_error);

    let fault = pack.fail_nth_write(2);
    let result = pack.apply("go");
    assert!(result.is_error);
    assert_eq!(
        result.text(),
        format!("Apply failed: could not write b.txt: {INJECTED_MESSAGE}; no file was changed")
    );
    for name in ["a.txt", "b.txt", "c.txt"] {
        assert_eq!(read(&pack, name), format!("old {name}"));
    }
    assert_eq!(pack.pending_labels(), ["Replace in 3 files"]);
    drop(fault);

    assert_eq!(pack.apply("again").text(), "Replaced in 3 files.");
    assert_eq!(read(&pack, "c.txt"), "new c.txt");
}

#[test]
fn hard_links_owner_and_mode_are_kept() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let pack = PackTest::new("text-replace", tools).unwrap();
    let file = pack.write("run.sh", "echo old");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o750)).unwrap();
    fs::hard_link(&file, pack.dir().join("alias.sh")).unwrap();
    let before = fs::metadata(&file).unwrap();
    assert!(!preview(&pack, &["run.sh"]).is_error);
    assert!(!pack.apply("go").is_error);
    let after = fs::metadata(&file).unwrap();
    assert_eq!(read(&pack, "alias.sh"), "echo new");
    assert_eq!(
        (after.ino(), after.uid(), after.gid(), after.mode() & 0o7777),
        (before.ino(), before.uid(), before.gid(), 0o750)
    );
}

#[test]
fn the_pack_reads_its_configuration() {
    let pack = PackTestBuilder::new("text-replace", tools)
        .config::<Limits>(json!({"max_files": 1}))
        .build()
        .unwrap();
    pack.write("a.txt", "old");
    pack.write("b.txt", "old");
    let result = preview(&pack, &["a.txt", "b.txt"]);
    assert!(result.is_error);
    assert_eq!(result.text(), "2 files, more than max_files (1)");
    assert!(!preview(&pack, &["a.txt"]).is_error);
}

#[test]
fn a_bad_configuration_key_is_refused_in_one_line() {
    let error = |table| {
        let error = PackTestBuilder::new("text-replace", tools)
            .config::<Limits>(table)
            .build()
            .unwrap_err();
        std::error::Error::source(&error).unwrap().to_string()
    };
    assert_eq!(
        error(json!({"max_file": 1})),
        "[packs.text-replace]: Additional properties are not allowed ('max_file' was unexpected)"
    );
    assert_eq!(
        error(json!({"max_files": "many"})),
        "[packs.text-replace] max_files: \"many\" is not of type \"integer\""
    );
}
