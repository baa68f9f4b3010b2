use std::sync::Mutex;

use super::*;

/// A check whose probe answers `outcome` and counts its calls.
fn counting(cache: &Path, outcome: ProbeOutcome) -> (FirstSeen, Arc<Mutex<usize>>) {
    let calls = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&calls);
    let probe: Probe = Arc::new(move |_| {
        *counted.lock().unwrap() += 1;
        outcome.clone()
    });
    (FirstSeen::new(Some(cache.to_path_buf()), probe), calls)
}

fn library(dir: &Path, bytes: &[u8]) -> PathBuf {
    let path = dir.join("libpack.so");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_library_is_checked_once_per_build() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let path = library(dir.path(), b"build one");
    let (check, calls) = counting(&cache, ProbeOutcome::Survived);
    for _ in 0..3 {
        check.check(&PackFile::open(&path).unwrap()).unwrap();
    }
    assert_eq!(*calls.lock().unwrap(), 1);

    // The same bytes in another file: known by their hash, no new check.
    let copy = dir.path().join("libcopy.so");
    std::fs::copy(&path, &copy).unwrap();
    check.check(&PackFile::open(&copy).unwrap()).unwrap();
    assert_eq!(*calls.lock().unwrap(), 1);

    // A new build is checked again.
    std::fs::write(&path, b"build two").unwrap();
    check.check(&PackFile::open(&path).unwrap()).unwrap();
    assert_eq!(*calls.lock().unwrap(), 2);
}

#[test]
fn a_library_that_killed_its_check_stays_refused_without_a_new_check() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let path = library(dir.path(), b"aborts");
    let cause = "its load-time code killed the process (SIGABRT)";
    let (check, calls) = counting(&cache, ProbeOutcome::Killed(cause.into()));
    for _ in 0..2 {
        let error = check.check(&PackFile::open(&path).unwrap()).unwrap_err();
        assert_eq!(error.to_string(), cause);
    }
    assert_eq!(*calls.lock().unwrap(), 1);
}

#[test]
fn an_unfinished_check_is_not_remembered_and_an_unavailable_one_lets_the_load_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let path = library(dir.path(), b"slow");
    let (check, calls) = counting(&cache, ProbeOutcome::Failed("too slow".into()));
    for _ in 0..2 {
        let error = check.check(&PackFile::open(&path).unwrap()).unwrap_err();
        assert_eq!(error.to_string(), "too slow");
    }
    assert_eq!(*calls.lock().unwrap(), 2);
    let (check, _) = counting(&cache, ProbeOutcome::Unavailable("no exe".into()));
    check.check(&PackFile::open(&path).unwrap()).unwrap();
}

#[cfg(unix)]
#[test]
fn a_cache_others_can_write_is_neither_read_nor_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let path = library(dir.path(), b"build");
    let (check, calls) = counting(&cache, ProbeOutcome::Survived);
    for _ in 0..2 {
        check.check(&PackFile::open(&path).unwrap()).unwrap();
    }
    assert_eq!(*calls.lock().unwrap(), 2);
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0);
}

#[test]
fn a_record_xcsh_did_not_write_is_checked_again_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let path = library(dir.path(), b"build");
    let sha = PackFile::open(&path).unwrap().sha256().unwrap();
    std::fs::create_dir(&cache).unwrap();
    let entry = cache.join(format!("sha256-{sha}"));
    std::fs::write(&entry, "maybe\n").unwrap();
    let (check, calls) = counting(&cache, ProbeOutcome::Survived);
    check.check(&PackFile::open(&path).unwrap()).unwrap();
    assert_eq!(*calls.lock().unwrap(), 1);
    assert_eq!(std::fs::read_to_string(&entry).unwrap(), "loaded\n");
}
