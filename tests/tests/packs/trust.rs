//! Which pack files the loader refuses to open.

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use xcsh_core::Session;
use xcsh_loader::{HostBinding, LoadError, PackLoader, TrustPolicy, sha256_hex};
use xcsh_test_support::pack_path;

fn copy_pack(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    fs::copy(pack_path("fixture-conflict-a"), &path).unwrap();
    path
}

fn problems(trust: TrustPolicy, dir: &Path, paths: &[PathBuf]) -> Vec<String> {
    let session = Session::new(dir);
    PackLoader::new()
        .with_trust(trust)
        .load(&session, &HostBinding::for_session(&session), paths)
        .problems()
}

#[cfg(unix)]
#[test]
fn packs_writable_by_other_users_are_refused() {
    use std::os::unix::fs::PermissionsExt;

    let dir = TempDir::new().unwrap();
    let packs = dir.path().join("packs");
    fs::create_dir(&packs).unwrap();
    let pack = copy_pack(&packs, "libwritable.so");
    let canonical = fs::canonicalize(&pack).unwrap();

    fs::set_permissions(&pack, fs::Permissions::from_mode(0o666)).unwrap();
    assert_eq!(
        problems(TrustPolicy::new(), dir.path(), std::slice::from_ref(&pack)),
        [format!(
            "Failed to load tool pack {}: refusing a pack writable by other users: {} (fix: chmod o-w {})",
            pack.display(),
            canonical.display(),
            canonical.display()
        )]
    );

    fs::set_permissions(&pack, fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(&packs, fs::Permissions::from_mode(0o777)).unwrap();
    let canonical_dir = fs::canonicalize(&packs).unwrap();
    assert_eq!(
        problems(TrustPolicy::new(), dir.path(), std::slice::from_ref(&pack)),
        [format!(
            "Failed to load tool pack {}: refusing a pack writable by other users: {} (fix: chmod o-w {})",
            pack.display(),
            canonical_dir.display(),
            canonical_dir.display()
        )]
    );

    fs::set_permissions(&packs, fs::Permissions::from_mode(0o755)).unwrap();
    assert!(problems(TrustPolicy::new(), dir.path(), &[pack]).is_empty());
}

#[test]
fn an_allow_list_rejects_a_changed_or_unlisted_pack() {
    let dir = TempDir::new().unwrap();
    let listed = copy_pack(dir.path(), "liblisted.so");
    let unlisted = copy_pack(dir.path(), "libunlisted.so");
    // A copy whose bytes changed after its hash was pinned. (Never rewrite
    // a loaded library in place: its mapped pages would change under the
    // running process.)
    let tampered = copy_pack(dir.path(), "libtampered.so");
    let good_hash = sha256_hex(&fs::read(&listed).unwrap());
    let mut bytes = fs::read(&tampered).unwrap();
    bytes.extend_from_slice(b"tampered");
    fs::write(&tampered, &bytes).unwrap();
    let trust = TrustPolicy::new().with_allow_list([
        (listed.clone(), good_hash.clone()),
        (tampered.clone(), good_hash.clone()),
    ]);

    assert_eq!(
        problems(
            trust,
            dir.path(),
            &[listed, unlisted.clone(), tampered.clone()]
        ),
        [
            format!(
                "Failed to load tool pack {}: not in the allow-list",
                unlisted.display()
            ),
            format!(
                "Failed to load tool pack {}: SHA-256 {} does not match the allow-list (expected {good_hash})",
                tampered.display(),
                sha256_hex(&bytes)
            ),
        ]
    );
}

/// A thread swaps the pinned pack and another pack back and forth while
/// the loader loads the pinned path, hundreds of times: every load either
/// is the pinned pack or is refused, never the other library.
#[test]
fn swapping_the_pack_during_loading_never_loads_an_unpinned_library() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    const ROUNDS: usize = 300;
    let dir = TempDir::new().unwrap();
    // Each round's files are hard links of these two: a fresh path for the
    // loader (which opens a path once), the same inode for the OS loader
    // (which maps a file once), so hundreds of rounds stay cheap.
    let good = dir.path().join("good.so");
    fs::copy(pack_path("fixture-conflict-a"), &good).unwrap();
    let evil = dir.path().join("evil.so");
    fs::copy(pack_path("fixture-conflict-b"), &evil).unwrap();
    let good_hash = sha256_hex(&fs::read(&good).unwrap());

    let (mut loaded, mut refused) = (0, 0);
    for round in 0..ROUNDS {
        let round_dir = dir.path().join(round.to_string());
        fs::create_dir(&round_dir).unwrap();
        let pinned = round_dir.join("libpinned.so");
        let other = round_dir.join("libother.so");
        let spare = round_dir.join("spare");
        fs::hard_link(&good, &pinned).unwrap();
        fs::hard_link(&evil, &other).unwrap();
        let trust = TrustPolicy::new().with_allow_list([(pinned.clone(), good_hash.clone())]);

        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (stop, pinned, other) = (Arc::clone(&stop), pinned.clone(), other.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    fs::rename(&pinned, &spare).unwrap();
                    fs::rename(&other, &pinned).unwrap();
                    fs::rename(&spare, &other).unwrap();
                }
            })
        };
        let session = Session::new(&round_dir);
        let report = PackLoader::new().with_trust(trust).load(
            &session,
            &HostBinding::for_session(&session),
            std::slice::from_ref(&pinned),
        );
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();

        for pack in &report.loaded {
            assert_eq!(pack.name, "fixture-conflict-a", "round {round}: {report:?}");
            loaded += 1;
        }
        for failure in &report.failures {
            assert!(
                matches!(
                    failure.error,
                    LoadError::HashMismatch { .. } | LoadError::Unreadable(_)
                ),
                "round {round}: {failure}"
            );
            refused += 1;
        }
        let tools: Vec<String> = session
            .tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        assert!(!tools.contains(&"evil".to_owned()), "{tools:?}");
    }
    // Both outcomes happened, so the swap did race the loader.
    assert!(
        loaded > 0 && refused > 0,
        "loaded {loaded}, refused {refused}"
    );
}

/// The ownership and mode rules on real files, through the loader: a
/// group-writable pack, a world-writable grandparent without the sticky
/// bit, and (as root, which may hand files to another user) a pack owned
/// by someone else under a sticky directory.
#[cfg(unix)]
#[test]
fn packs_with_unsafe_owners_or_modes_are_refused_naming_the_path() {
    use std::os::unix::fs::PermissionsExt;

    let set =
        |path: &Path, mode| fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    let dir = TempDir::new().unwrap();
    let top = fs::canonicalize(dir.path()).unwrap();
    let packs = top.join("a/b");
    fs::create_dir_all(&packs).unwrap();
    set(&top.join("a"), 0o755);
    set(&packs, 0o755);
    let pack = copy_pack(&packs, "libpack.so");
    set(&pack, 0o755);
    let failure = |expected: String| {
        assert_eq!(
            problems(TrustPolicy::new(), &top, std::slice::from_ref(&pack)),
            [format!(
                "Failed to load tool pack {}: {expected}",
                pack.display()
            )]
        );
    };

    set(&pack, 0o775);
    failure(format!(
        "refusing a pack writable by its group: {p} (fix: chmod g-w {p})",
        p = pack.display()
    ));
    set(&pack, 0o755);
    set(&top.join("a"), 0o777);
    failure(format!(
        "refusing a pack writable by other users: {p} (fix: chmod o-w {p})",
        p = top.join("a").display()
    ));
    // Sticky, like /tmp: what is below it is the user's, so it loads.
    set(&top.join("a"), 0o1777);
    assert!(problems(TrustPolicy::new(), &top, std::slice::from_ref(&pack)).is_empty());

    let root = fs::metadata("/proc/self").is_ok_and(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid() == 0
    });
    if root {
        let shared = top.join("a/other.so");
        fs::copy(&pack, &shared).unwrap();
        std::os::unix::fs::chown(&shared, Some(65534), Some(65534)).unwrap();
        assert_eq!(
            problems(TrustPolicy::new(), &top, std::slice::from_ref(&shared)),
            [format!(
                "Failed to load tool pack {p}: refusing a pack whose path is owned by another user (uid 65534): {p} (fix: copy the pack into a directory you own)",
                p = shared.display()
            )]
        );
    }
}

/// A FIFO named as a pack is refused at once (opening it does not wait for
/// a writer).
#[cfg(unix)]
#[test]
fn a_fifo_named_as_a_pack_is_refused_at_once() {
    let dir = TempDir::new().unwrap();
    let fifo = dir.path().join("libfifo.so");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        problems(TrustPolicy::new(), dir.path(), std::slice::from_ref(&fifo)),
        [format!(
            "Failed to load tool pack {}: not a regular file",
            fifo.display()
        )]
    );
}
