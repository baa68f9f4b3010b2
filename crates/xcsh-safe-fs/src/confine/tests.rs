use super::*;

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let canonical = fs::canonicalize(dir.path()).unwrap();
    (dir, canonical)
}

fn outside_message(path: &str, resolved: &Path) -> String {
    format!(
        "path {path} is outside the working directory: it resolves to {} \
         (start xcsh with --allow-outside-root to allow this)",
        resolved.display()
    )
}

#[test]
fn a_relative_path_inside_resolves_under_the_root() {
    let (_dir, root) = root();
    fs::create_dir(root.join("src")).unwrap();
    assert_eq!(
        confine(&root, "src/./../src/new.rs", false).unwrap(),
        root.join("src/new.rs")
    );
}

#[test]
fn parent_components_leading_out_are_refused_with_the_hosts_message() {
    let (_dir, root) = root();
    let error = confine(&root, "../x", false).unwrap_err();
    let resolved = root.parent().unwrap().join("x");
    assert_eq!(error.to_string(), outside_message("../x", &resolved));
}

#[test]
fn an_absolute_path_outside_is_refused() {
    let (_dir, root) = root();
    let error = confine(&root, "/etc/x", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        outside_message("/etc/x", Path::new("/etc/x"))
    );
}

#[cfg(unix)]
#[test]
fn a_link_leading_out_is_refused_even_dangling() {
    let (_dir, root) = root();
    let (_other, elsewhere) = self::root();
    std::os::unix::fs::symlink(&elsewhere, root.join("out")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("not-yet"), root.join("dangling")).unwrap();
    let error = confine(&root, "out/secret", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        outside_message("out/secret", &elsewhere.join("secret"))
    );
    let error = confine(&root, "dangling", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        outside_message("dangling", &elsewhere.join("not-yet"))
    );
}

#[cfg(unix)]
#[test]
fn a_link_inside_is_followed() {
    let (_dir, root) = root();
    fs::create_dir(root.join("real")).unwrap();
    std::os::unix::fs::symlink("real", root.join("link")).unwrap();
    assert_eq!(
        confine(&root, "link/a.rs", false).unwrap(),
        root.join("real/a.rs")
    );
}

#[test]
fn allowed_outside_resolves_without_refusing() {
    let (_dir, root) = root();
    assert_eq!(
        confine(&root, "../x", true).unwrap(),
        root.parent().unwrap().join("x")
    );
}

#[cfg(unix)]
#[test]
fn a_link_loop_is_an_error_not_a_hang() {
    let (_dir, root) = root();
    std::os::unix::fs::symlink("b", root.join("a")).unwrap();
    std::os::unix::fs::symlink("a", root.join("b")).unwrap();
    let error = confine(&root, "a", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot resolve path {}: too many levels of symbolic links",
            root.join("a").display()
        )
    );
}

#[cfg(unix)]
#[test]
fn a_name_printed_with_byte_escapes_is_confined_as_its_bytes() {
    use std::os::unix::ffi::OsStrExt as _;
    let raw = |bytes: &[u8]| PathBuf::from(std::ffi::OsStr::from_bytes(bytes));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(raw(b"caf\xe9"));
    fs::create_dir(&root).unwrap();
    fs::write(root.join(raw(b"\xff.txt")), "x").unwrap();
    let canonical = fs::canonicalize(&root).unwrap();
    assert_eq!(
        confine(&root, r"\xff.txt", false).unwrap(),
        canonical.join(raw(b"\xff.txt"))
    );
    let error = confine(&root, r"../\xff", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            r"path ../\xff is outside the working directory: it resolves to {}\xff (start xcsh with --allow-outside-root to allow this)",
            crate::name::shown(&fs::canonicalize(dir.path()).unwrap().join(""))
        )
    );
}
