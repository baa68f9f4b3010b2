use std::fs;
use std::sync::mpsc;
use std::time::Duration;

use super::*;

/// Runs `f` on a thread and fails the test if it has not returned within
/// five seconds, so a regression that blocks fails instead of hanging.
fn within_seconds<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(5))
        .expect("did not return within 5 s: the read blocks")
}

fn reason(path: &Path) -> String {
    let path = path.to_path_buf();
    within_seconds(move || read_source(&path).unwrap_err().to_string())
}

#[test]
fn skips_binary_large_and_non_utf8_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        fs::write(&path, bytes).unwrap();
        path
    };

    assert_eq!(
        read_source(&file("ok.rs", b"fn a() {}")).unwrap(),
        "fn a() {}"
    );
    assert_eq!(reason(&file("bin.rs", b"fn\0a")), "binary file");
    assert_eq!(reason(&file("latin1.rs", b"// caf\xe9")), "not UTF-8 text");
    let limit = vec![b'a'; MAX_FILE_BYTES as usize];
    assert_eq!(
        read_source(&file("limit.rs", &limit)).unwrap().len(),
        limit.len()
    );
    let big = vec![b'a'; MAX_FILE_BYTES as usize + 1];
    assert_eq!(
        reason(&file("big.rs", &big)),
        "file too large (more than 2097152 bytes)"
    );
    assert!(reason(&dir.path().join("missing.rs")).starts_with("cannot read: "));
    assert_eq!(reason(dir.path()), "not a regular file (a directory)");
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.rs");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(reason(&fifo), "not a regular file (a named pipe)");
    let opened = within_seconds(move || open_regular(&fifo, true).map(drop));
    assert_eq!(
        opened.unwrap_err().to_string(),
        "not a regular file (a named pipe)"
    );
}

#[cfg(unix)]
#[test]
fn devices_are_refused_at_once() {
    assert_eq!(
        reason(Path::new("/dev/zero")),
        "not a regular file (a character device)"
    );
    assert_eq!(
        reason(Path::new("/dev/null")),
        "not a regular file (a character device)"
    );
}

#[cfg(unix)]
#[test]
fn reads_stop_after_the_limit_whatever_the_reported_size() {
    // /dev/zero reports size 0 and never ends: the read still stops.
    let mut zero = File::open("/dev/zero").unwrap();
    assert_eq!(zero.metadata().unwrap().len(), 0);
    let outcome = within_seconds(move || read_limited(&mut zero).map(|b| b.len()));
    assert!(matches!(outcome, Err(SkipReason::TooLarge)), "{outcome:?}");
}
