use std::path::PathBuf;

use super::*;

const ME: u32 = 1000;
const OTHER: u32 = 1001;

fn verdict(role: Role, uid: u32, mode: u32) -> Result<(), LoadError> {
    judge(Path::new("/p"), role, Entry { uid, mode }, ME)
}

fn path() -> PathBuf {
    PathBuf::from("/p")
}

#[test]
fn files_must_be_the_users_or_roots_and_writable_by_neither_group_nor_others() {
    use Role::File;
    assert_eq!(verdict(File, ME, 0o755), Ok(()));
    assert_eq!(verdict(File, 0, 0o644), Ok(()));
    assert_eq!(verdict(File, ME, 0o700), Ok(()));
    assert_eq!(
        verdict(File, OTHER, 0o755),
        Err(LoadError::ForeignOwner {
            path: path(),
            uid: OTHER
        })
    );
    assert_eq!(
        verdict(File, ME, 0o775),
        Err(LoadError::GroupWritable { path: path() })
    );
    assert_eq!(
        verdict(File, ME, 0o757),
        Err(LoadError::Untrusted { path: path() })
    );
    assert_eq!(
        verdict(File, 0, 0o777),
        Err(LoadError::Untrusted { path: path() })
    );
    // The sticky bit means nothing on a file.
    assert_eq!(
        verdict(File, ME, 0o1777),
        Err(LoadError::Untrusted { path: path() })
    );
}

#[test]
fn directories_follow_the_same_rules_unless_sticky() {
    use Role::Directory;
    assert_eq!(verdict(Directory, ME, 0o755), Ok(()));
    assert_eq!(verdict(Directory, 0, 0o755), Ok(()));
    assert_eq!(
        verdict(Directory, OTHER, 0o755),
        Err(LoadError::ForeignOwner {
            path: path(),
            uid: OTHER
        })
    );
    assert_eq!(
        verdict(Directory, ME, 0o770),
        Err(LoadError::GroupWritable { path: path() })
    );
    // A world-writable directory without the sticky bit: anyone may swap
    // what is inside.
    assert_eq!(
        verdict(Directory, 0, 0o777),
        Err(LoadError::Untrusted { path: path() })
    );
    // /tmp: sticky and world-writable, owned by root.
    assert_eq!(verdict(Directory, 0, 0o1777), Ok(()));
    assert_eq!(verdict(Directory, ME, 0o1777), Ok(()));
    // A sticky directory of someone else's is still someone else's.
    assert_eq!(
        verdict(Directory, OTHER, 0o1777),
        Err(LoadError::ForeignOwner {
            path: path(),
            uid: OTHER
        })
    );
}

#[test]
fn root_may_own_anything_and_the_check_reads_only_write_bits() {
    let as_root = |uid, mode| judge(Path::new("/p"), Role::File, Entry { uid, mode }, 0);
    assert_eq!(as_root(0, 0o555), Ok(()));
    assert_eq!(
        as_root(ME, 0o555),
        Err(LoadError::ForeignOwner {
            path: path(),
            uid: ME
        })
    );
    assert_eq!(as_root(0, 0o4755), Ok(()));
}

#[test]
fn refusals_name_the_path_and_the_fix_on_one_line() {
    let p = "/srv/packs/libx.so";
    let error = |e: LoadError| e.to_string();
    assert_eq!(
        error(LoadError::Untrusted { path: p.into() }),
        "refusing a pack writable by other users: /srv/packs/libx.so (fix: chmod o-w /srv/packs/libx.so)"
    );
    assert_eq!(
        error(LoadError::GroupWritable { path: p.into() }),
        "refusing a pack writable by its group: /srv/packs/libx.so (fix: chmod g-w /srv/packs/libx.so)"
    );
    assert_eq!(
        error(LoadError::ForeignOwner {
            path: p.into(),
            uid: 1001
        }),
        "refusing a pack whose path is owned by another user (uid 1001): /srv/packs/libx.so (fix: copy the pack into a directory you own)"
    );
}

/// The real filesystem: a pack under a fresh temporary directory (under
/// `/tmp`, sticky and world-writable on most systems) passes, and each
/// broken rule is refused naming its path.
#[cfg(unix)]
#[test]
fn real_paths_under_a_temporary_directory() {
    use std::os::unix::fs::PermissionsExt;

    let top = std::env::temp_dir().join(format!("xcsh-safe-path-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    std::fs::create_dir(&top).unwrap();
    let top = std::fs::canonicalize(&top).unwrap();
    let set = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    let dir = top.join("packs");
    std::fs::create_dir(&dir).unwrap();
    let file = dir.join("libpack.so");
    std::fs::write(&file, b"x").unwrap();
    set(&top, 0o755);
    set(&dir, 0o755);
    set(&file, 0o644);
    let checked = || check(&file, &std::fs::metadata(&file).unwrap());

    checked().unwrap();
    set(&file, 0o664);
    assert_eq!(
        checked(),
        Err(LoadError::GroupWritable { path: file.clone() })
    );
    set(&file, 0o644);
    // A world-writable grandparent without the sticky bit.
    set(&top, 0o777);
    assert_eq!(checked(), Err(LoadError::Untrusted { path: top.clone() }));
    // The same, sticky: the entries below it are the user's.
    set(&top, 0o1777);
    checked().unwrap();
    set(&top, 0o755);

    if rustix::process::geteuid().is_root() {
        // Another user's file, or directory, even under a sticky parent.
        let nobody = 65534;
        std::os::unix::fs::chown(&file, Some(nobody), None).unwrap();
        set(&top, 0o1777);
        assert_eq!(
            checked(),
            Err(LoadError::ForeignOwner {
                path: file.clone(),
                uid: nobody
            })
        );
        std::os::unix::fs::chown(&file, Some(0), None).unwrap();
        std::os::unix::fs::chown(&dir, Some(nobody), None).unwrap();
        assert_eq!(
            checked(),
            Err(LoadError::ForeignOwner {
                path: dir.clone(),
                uid: nobody
            })
        );
        std::os::unix::fs::chown(&dir, Some(0), None).unwrap();
        checked().unwrap();
    }
    std::fs::remove_dir_all(&top).unwrap();
}

/// The repository's own build directories pass, so the tests that load
/// packs from `target/` work wherever the repository is cloned with a
/// usual umask.
#[cfg(unix)]
#[test]
fn this_test_binary_passes_where_it_was_built() {
    let exe = std::fs::canonicalize(std::env::current_exe().unwrap()).unwrap();
    check(&exe, &std::fs::metadata(&exe).unwrap()).unwrap();
}
