use std::fs;
use std::path::Path;

use super::*;

fn planned(path: &Path, original: &str, new_content: &str) -> PlannedWrite {
    let display = path.file_name().unwrap().to_string_lossy().into_owned();
    PlannedWrite {
        snapshot: Snapshot::of(path, display, original.as_bytes()),
        replacements: 2,
        new_content: new_content.to_owned(),
    }
}

#[test]
fn writes_files_and_leaves_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.rs");
    fs::write(&a, "old").unwrap();
    let out = apply(&[planned(&a, "old", "new")]).unwrap();
    assert_eq!(fs::read_to_string(&a).unwrap(), "new");
    assert_eq!(
        out.content,
        ToolOutput::text("Applied 2 replacement(s) in 1 file(s).").content
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn keeps_the_file_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("run.py");
    fs::write(&script, "old").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o751)).unwrap();
    apply(&[planned(&script, "old", "new")]).unwrap();
    let mode = fs::metadata(&script).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o751);
}

#[test]
fn stale_files_are_listed_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.rs"), dir.path().join("b.rs"));
    fs::write(&a, "old").unwrap();
    fs::write(&b, "user edit").unwrap();
    let out = apply(&[planned(&a, "old", "new"), planned(&b, "old", "new")]).unwrap();
    assert_eq!(
        out.content,
        ToolOutput::text(
            "Applied 2 replacement(s) in 1 file(s).\nNot written, changed since the preview (stale): b.rs"
        )
        .content
    );
    assert_eq!(out.details.unwrap()["stale"], json!(["b.rs"]));
    assert_eq!(fs::read_to_string(&b).unwrap(), "user edit");
}

#[test]
fn all_stale_is_an_error_that_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.rs");
    fs::write(&a, "user edit").unwrap();
    let gone = dir.path().join("gone.rs");
    let err = apply(&[planned(&a, "old", "new"), planned(&gone, "old", "new")]).unwrap_err();
    assert_eq!(
        err.message(),
        "every file changed since the preview, nothing was written (stale: a.rs, gone.rs). \
         Discard this action and run ast_edit again for a fresh preview."
    );
    assert_eq!(fs::read_to_string(&a).unwrap(), "user edit");
    assert!(!gone.exists());
}

#[test]
fn a_file_that_cannot_be_written_fails_the_apply_before_any_write() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.rs");
    fs::write(&a, "old").unwrap();
    // A directory where a file was previewed: it cannot be written.
    let b = dir.path().join("b.rs");
    fs::create_dir(&b).unwrap();
    let writes = [planned(&a, "old", "new"), planned(&b, "old", "new")];

    let err = apply(&writes).unwrap_err();
    assert_eq!(
        err.message(),
        "could not write b.rs: not a regular file (a directory); no file was changed"
    );
    assert_eq!(fs::read_to_string(&a).unwrap(), "old");

    fs::remove_dir(&b).unwrap();
    fs::write(&b, "old").unwrap();
    let out = apply(&writes).unwrap();
    assert_eq!(out.details.unwrap()["appliedFiles"], 2);
    assert_eq!(fs::read_to_string(&b).unwrap(), "new");
}

#[test]
fn a_write_failing_half_way_puts_the_written_files_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let (a, b) = (root.join("a.rs"), root.join("b.rs"));
    fs::write(&a, "old").unwrap();
    fs::write(&b, "old").unwrap();
    let writes = [planned(&a, "old", "new"), planned(&b, "old", "new")];

    let fault = xcsh_safe_fs::fault::fail_nth_write(&root, 2);
    let err = apply(&writes).unwrap_err();
    assert_eq!(
        err.message(),
        format!(
            "could not write b.rs: {}; no file was changed",
            xcsh_safe_fs::fault::INJECTED_MESSAGE
        )
    );
    assert_eq!(fs::read_to_string(&a).unwrap(), "old");
    assert_eq!(fs::read_dir(&root).unwrap().count(), 2, "no backup is left");
    drop(fault);
    apply(&writes).unwrap();
    assert_eq!(fs::read_to_string(&b).unwrap(), "new");
}

#[cfg(unix)]
#[test]
fn a_file_replaced_by_a_named_pipe_fails_at_once_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.rs");
    let status = std::process::Command::new("mkfifo")
        .arg(&a)
        .status()
        .unwrap();
    assert!(status.success());
    let writes = [planned(&a, "old", "new")];
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(apply(&writes).map(|_| ()).unwrap_err().message().to_owned());
    });
    let message = receive
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("apply blocked on a named pipe");
    assert_eq!(
        message,
        "could not write a.rs: not a regular file (a named pipe); no file was changed"
    );
}

#[cfg(unix)]
#[test]
fn a_path_that_leads_elsewhere_since_the_preview_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    fs::create_dir(root.join("src")).unwrap();
    fs::create_dir(root.join("elsewhere")).unwrap();
    let a = root.join("src/a.rs");
    fs::write(&a, "old").unwrap();
    let writes = [planned(&a, "old", "new")];
    // The directory is swapped for a link to one holding the same content.
    fs::rename(root.join("src"), root.join("moved")).unwrap();
    fs::write(root.join("elsewhere/a.rs"), "old").unwrap();
    std::os::unix::fs::symlink(root.join("elsewhere"), root.join("src")).unwrap();

    let err = apply(&writes).unwrap_err();
    assert!(
        err.message()
            .starts_with("every file changed since the preview")
    );
    assert_eq!(
        fs::read_to_string(root.join("elsewhere/a.rs")).unwrap(),
        "old"
    );
}
