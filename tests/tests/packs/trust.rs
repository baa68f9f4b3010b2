//! Which pack files the loader refuses to open.

use std::fs;
use std::path::{Path, PathBuf};

use tempfile::TempDir;
use xcsh_core::Session;
use xcsh_loader::{HostBinding, PackLoader, TrustPolicy, sha256_hex};
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
