//! What the namespace sandbox closes that Landlock does not cover: a
//! hostile isolated pack changes the mode, owner, times and extended
//! attributes of a file outside its working directory and of xcsh's
//! journal, creates device nodes in the working directory, writes the
//! kernel log and opens the disks. Every act is refused with the kernel's
//! error, nothing changes, and the pack's own earlier pending action and
//! the other pack's both still apply. These run as whoever runs the tests
//! (root in CI, where `trusted.` attributes and `mknod` are root's to
//! try); `reach_as_user.rs` runs them as an ordinary user.

use std::os::unix::fs::FileTypeExt as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::file_state::{FileState, set_xattr};
use super::hostile::{call, isolated, run_between, texts};
use super::sandbox::outside;
use crate::support::{Env, Output, arg, json_lines, resolve_line};

/// What the kernel says to a change on a read-only mount.
pub(super) const READ_ONLY: &str = "Read-only file system (os error 30)";

/// The times the pack tries to give files: the epoch.
const EPOCH: i64 = 0;

/// The owner the pack tries to give files as root: someone else.
const SOMEONE_ELSE: u32 = 4242;

/// The calls of a hostile session: a well-behaved push first, then
/// `attacks`, then a call that shows the pack still answers, then that
/// push applied (`resolve` takes the latest action first; `run_between`
/// applies the other pack's after it).
pub(super) fn session(attacks: Vec<String>) -> Vec<String> {
    let mut calls = vec![call("push_marker", json!({"tag": "before"}))];
    calls.extend(attacks);
    calls.push(call("progress", json!({})));
    calls.push(resolve_line("apply", "the pack's own"));
    calls
}

/// Every metadata change there is on `path`, giving it owner `owner`.
pub(super) fn metadata_attacks(path: &Path, owner: u32) -> Vec<String> {
    let path = arg(path);
    let xattr = |name: &str| {
        call(
            "set_xattr",
            json!({"path": path, "name": name, "value": "forged"}),
        )
    };
    vec![
        call("chmod", json!({"path": path, "mode": 0o4777})),
        call("chown", json!({"path": path, "uid": owner, "gid": owner})),
        call("set_times", json!({"path": path, "seconds": EPOCH})),
        xattr("user.kept"),
        xattr("user.planted"),
        xattr("trusted.planted"),
    ]
}

/// Checks the answers of `session(attacks)` run by `run_between`: the
/// agent answered every call, each attack got `refusals[i]`, the pack
/// answered after them with both pending actions still there, and its
/// own applied (`run_between` checks the other pack's).
pub(super) fn assert_refused(output: &Output, refusals: &[String]) {
    let texts = texts(output);
    let after = 2 + refusals.len();
    // The preview, the push, the attacks, `progress`, two `resolve`s.
    assert_eq!(texts.len(), after + 3, "{output:?}");
    assert_eq!(texts[1], "pushed before");
    assert_eq!(texts[2..after], *refusals, "{texts:?}");
    assert!(texts[after].starts_with("done in "), "{texts:?}");
    assert_eq!(
        json_lines(&output.stdout)[after]["pending"],
        2,
        "{output:?}"
    );
    assert_eq!(texts[after + 1], "applied before", "{texts:?}");
}

/// `{path}: {error}` `times` times.
pub(super) fn each(path: &Path, error: &str, times: usize) -> Vec<String> {
    vec![format!("{}: {error}", path.display()); times]
}

#[test]
fn metadata_of_a_file_outside_the_working_directory_cannot_change() {
    let env = Env::new();
    let elsewhere = outside();
    let target = crate::support::write(&elsewhere.path().join("outside.txt"), "outside\n");
    set_xattr(&target, "user.kept", "yes");
    let before = FileState::of(&target);
    let attacks = metadata_attacks(&target, SOMEONE_ELSE);
    let refusals = each(&target, READ_ONLY, attacks.len());
    let output = run_between(&env, isolated(&env), &session(attacks));
    assert_refused(&output, &refusals);
    assert_eq!(FileState::of(&target), before);
}

#[test]
fn metadata_of_xcsh_s_journal_cannot_change() {
    let env = Env::new();
    let journal = env.write(".xcsh/journal.jsonl", "{\"kept\":true}\n");
    set_xattr(&journal, "user.kept", "yes");
    let before = FileState::of(&journal);
    let attacks = metadata_attacks(&journal, SOMEONE_ELSE);
    let refusals = each(&journal, READ_ONLY, attacks.len());
    let output = run_between(&env, isolated(&env), &session(attacks));
    assert_refused(&output, &refusals);
    // The agent itself goes on appending there (times and contents).
    let after = FileState::of(&journal);
    assert_eq!(
        (after.mode, after.uid, after.gid, &after.xattrs),
        (before.mode, before.uid, before.gid, &before.xattrs)
    );
    assert_ne!(after.modified.0, EPOCH);
    assert!(after.contents.starts_with(&before.contents));
}

#[test]
fn no_device_node_can_be_made_in_the_working_directory() {
    let env = Env::new();
    let kmsg = env.work().join("kmsg");
    let mem = env.work().join("mem");
    let mknod = |path: &Path, minor: u32| {
        call(
            "mknod",
            json!({"path": arg(path), "major": 1, "minor": minor}),
        )
    };
    let output = run_between(
        &env,
        isolated(&env),
        &session(vec![mknod(&kmsg, 11), mknod(&mem, 1)]),
    );
    let refusals = [
        each(&kmsg, "Operation not permitted (os error 1)", 1),
        each(&mem, "Operation not permitted (os error 1)", 1),
    ]
    .concat();
    assert_refused(&output, &refusals);
    for node in [kmsg, mem] {
        assert!(
            node.symlink_metadata().is_err(),
            "{} exists",
            node.display()
        );
    }
}

/// Every block device (disk, partition) in the system's `/dev`.
fn disks() -> Vec<PathBuf> {
    let disks: Vec<PathBuf> = std::fs::read_dir("/dev")
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_block_device()))
        .map(|entry| entry.path())
        .collect();
    if disks.is_empty() {
        eprintln!("no block device in /dev here: only the kernel log is tried");
    }
    disks
}

#[test]
fn the_kernel_log_and_the_disks_are_not_in_its_dev() {
    let env = Env::new();
    let disks = disks();
    let mut attacks = vec![call(
        "write_kmsg",
        json!({"text": "<0>xcsh: forged by a pack\n"}),
    )];
    attacks.extend(
        disks
            .iter()
            .map(|disk| call("open_device", json!({"path": arg(disk)}))),
    );
    let output = run_between(&env, isolated(&env), &session(attacks));
    const MISSING: &str = "No such file or directory (os error 2)";
    let mut refusals = each(Path::new("/dev/kmsg"), MISSING, 1);
    refusals.extend(disks.iter().flat_map(|disk| each(disk, MISSING, 1)));
    assert_refused(&output, &refusals);
}
