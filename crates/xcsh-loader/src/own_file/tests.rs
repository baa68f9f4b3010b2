use std::os::unix::fs::PermissionsExt as _;

use super::*;

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_file_or_directory_others_can_write_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("xcsh");
    std::fs::create_dir(&sub).unwrap();
    chmod(&sub, 0o755);
    let file = sub.join("config.toml");
    let own = OwnFile::new(&file, "the config file", 1 << 20);
    assert_eq!(check_own_file(&file, "the config file"), Ok(()));
    assert_eq!(own.read(), Ok(None));
    std::fs::write(&file, "").unwrap();
    chmod(&file, 0o644);
    assert_eq!(check_own_file(&file, "the config file"), Ok(()));
    assert_eq!(own.read(), Ok(Some(Vec::new())));
    let canonical = std::fs::canonicalize(&file).unwrap();
    chmod(&file, 0o666);
    let others = format!(
        "refusing the config file writable by other users: {} (fix: chmod o-w {})",
        canonical.display(),
        canonical.display()
    );
    assert_eq!(
        check_own_file(&file, "the config file"),
        Err(others.clone())
    );
    assert_eq!(own.read(), Err(others));
    chmod(&file, 0o600);
    chmod(&sub, 0o770);
    let parent = canonical.parent().unwrap();
    let group = format!(
        "refusing the config file writable by its group: {} (fix: chmod g-w {})",
        parent.display(),
        parent.display()
    );
    assert_eq!(check_own_file(&file, "the config file"), Err(group.clone()));
    assert_eq!(own.read(), Err(group));
}

#[test]
fn a_fifo_a_device_or_a_socket_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("packs.json");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    assert_eq!(
        OwnFile::new(&fifo, "the pack registry", 1 << 20).read(),
        Err(format!(
            "refusing the pack registry that is a named pipe, not a regular file: {} (fix: remove it)",
            fifo.display()
        ))
    );
    let zero = dir.path().join("config.toml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    assert_eq!(
        OwnFile::new(&zero, "the config file", 1 << 20).read(),
        Err(format!(
            "refusing the config file that is a character device, not a regular file: {} (fix: remove it)",
            zero.display()
        ))
    );
    let socket = dir.path().join("trusted-projects.json");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    assert_eq!(
        OwnFile::new(&socket, "the trust file", 1 << 20).read(),
        Err(format!(
            "refusing the trust file that is a socket, not a regular file: {} (fix: remove it)",
            socket.display()
        ))
    );
}

#[test]
fn a_file_over_its_limit_is_refused_and_one_at_it_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, vec![b'#'; 1024]).unwrap();
    chmod(&path, 0o600);
    assert_eq!(
        OwnFile::new(&path, "the config file", 1024)
            .read()
            .unwrap()
            .unwrap()
            .len(),
        1024
    );
    assert_eq!(
        OwnFile::new(&path, "the config file", 1023).read(),
        Err(format!(
            "refusing the config file larger than 1023 bytes: {} (fix: remove it)",
            path.display()
        ))
    );
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len((1 << 20) + 1)
        .unwrap();
    assert_eq!(
        OwnFile::new(&path, "the config file", 1 << 20).read(),
        Err(format!(
            "refusing the config file larger than 1 MiB: {} (fix: remove it)",
            path.display()
        ))
    );
}

#[test]
fn a_secret_others_can_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("journal.key");
    std::fs::write(&path, "k\n").unwrap();
    chmod(&path, 0o640);
    let key = OwnFile::new(&path, "the journal key", 256).private();
    assert_eq!(
        key.read(),
        Err(format!(
            "refusing the journal key readable by other users: {} (fix: chmod 600 {})",
            path.display(),
            path.display()
        ))
    );
    chmod(&path, 0o600);
    assert_eq!(key.read(), Ok(Some(b"k\n".to_vec())));
}

#[test]
fn a_project_file_is_not_held_to_the_owner_rules() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "x").unwrap();
    chmod(&path, 0o666);
    let file = OwnFile::new(&path, "the project's config file", 16);
    assert!(file.read().is_err());
    assert_eq!(file.in_project().read(), Ok(Some(b"x".to_vec())));
}

#[test]
fn without_links_a_symbolic_or_hard_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    std::fs::write(&target, "k").unwrap();
    chmod(&target, 0o600);
    let link = dir.path().join("journal.key");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let key = |path| {
        OwnFile::new(path, "the journal key", 16)
            .private()
            .without_links()
            .read()
    };
    assert_eq!(
        key(&link),
        Err(format!(
            "refusing the journal key that is a symbolic link: {} (fix: remove it)",
            link.display()
        ))
    );
    std::fs::remove_file(&link).unwrap();
    std::fs::hard_link(&target, &link).unwrap();
    assert_eq!(
        key(&link),
        Err(format!(
            "refusing the journal key that has other names (a hard link): {} (fix: remove it)",
            link.display()
        ))
    );
    std::fs::remove_file(&target).unwrap();
    assert_eq!(key(&link), Ok(Some(b"k".to_vec())));
}
