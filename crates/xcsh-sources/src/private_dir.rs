//! The directory of the user's xcsh secrets, `{data}/private` (mode
//! 0700): the journal's key (`journal.key`) and the MCP HTTP server's
//! bearer token (`mcp-token`). No isolated pack can read in it, in any
//! mode of the sandbox: the agent hides it (an empty directory over it in
//! the namespaces, no Landlock rule beneath it without them), so a pack
//! can neither read the key nor forge a journal entry that verifies.
//!
//! The agent makes it at start-up, before any pack starts, and checks it
//! each time it is used: a directory of the user's own (not a link), that
//! neither its group nor others may read, write or enter, in a path owned
//! by root or the user that nobody else may write. A secret that an older
//! xcsh kept in the data directory itself is moved in once (a rename on
//! the same file system), so journals keep verifying and MCP clients keep
//! their token.

use std::path::{Path, PathBuf};

/// The private directory's name in the user's xcsh data directory.
pub const PRIVATE_DIR_NAME: &str = "private";

/// The secrets an older xcsh kept in the data directory itself, moved in
/// by [`prepare`]: the journal's key and the MCP token.
pub const MOVED_IN: [&str; 2] = ["journal.key", "mcp-token"];

/// The private directory of the data directory `data`.
pub fn path(data: &Path) -> PathBuf {
    data.join(PRIVATE_DIR_NAME)
}

/// The private directory of `data`, made (mode 0700, with `data` where it
/// is missing) and checked (see the module documentation), with every
/// secret of [`MOVED_IN`] that is still in `data` itself and missing from
/// it moved in.
///
/// # Errors
///
/// One line naming the path at fault and the fix:
///
/// - `refusing the private directory that is a symbolic link: {path} (fix:
///   remove it; xcsh makes it again)`;
/// - `refusing the private directory that is a file, not a directory: …`;
/// - `refusing the private directory owned by another user (uid {uid}):
///   {path} (fix: remove it; xcsh makes it again)`;
/// - `refusing the private directory open to its group or others: {path}
///   (fix: chmod 700 {path})`;
/// - a directory above it writable by others, or owned by another user
///   (in the words of [`xcsh_loader::check_own_file`]);
/// - `cannot make the private directory {path}: {error}`, `cannot move
///   {old} into the private directory {path}: {error}`.
pub fn prepare(data: &Path) -> Result<PathBuf, String> {
    let dir = path(data);
    make(&dir)?;
    check(&dir)?;
    for name in MOVED_IN {
        let (old, new) = (data.join(name), dir.join(name));
        if std::fs::symlink_metadata(&new).is_ok() || std::fs::symlink_metadata(&old).is_err() {
            continue;
        }
        // The same file system (a directory inside `data`): the secret is
        // at one path or the other, never lost or copied.
        match std::fs::rename(&old, &new) {
            Ok(()) => tracing::info!("moved {} to {}", old.display(), new.display()),
            // Another xcsh starting at once moved it first.
            Err(_) if std::fs::symlink_metadata(&new).is_ok() => {}
            Err(error) => {
                return Err(format!(
                    "cannot move {} into the private directory {}: {error}",
                    old.display(),
                    dir.display()
                ));
            }
        }
    }
    Ok(dir)
}

/// Makes `dir` (mode 0700) and its parents where missing.
fn make(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Ok(()) => Ok(()),
        // A link or a file there: judged by `check`, in one line.
        Err(_) if std::fs::symlink_metadata(dir).is_ok() => Ok(()),
        Err(error) => Err(format!(
            "cannot make the private directory {}: {error}",
            dir.display()
        )),
    }
}

/// Checks the private directory `dir` (see [`prepare`]).
///
/// # Errors
///
/// See [`prepare`].
pub fn check(dir: &Path) -> Result<(), String> {
    let refused = |why: &str, fix: &str| {
        format!(
            "refusing the private directory {why}: {} (fix: {fix})",
            dir.display()
        )
    };
    let again = "remove it; xcsh makes it again";
    let metadata = std::fs::symlink_metadata(dir).map_err(|error| {
        format!(
            "cannot examine the private directory {}: {error}",
            dir.display()
        )
    })?;
    if metadata.file_type().is_symlink() {
        return Err(refused("that is a symbolic link", again));
    }
    if !metadata.is_dir() {
        return Err(refused("that is not a directory", again));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        let me = nix::unistd::geteuid().as_raw();
        if metadata.uid() != me {
            return Err(refused(
                &format!("owned by another user (uid {})", metadata.uid()),
                again,
            ));
        }
        if metadata.mode() & 0o077 != 0 {
            return Err(refused(
                "open to its group or others",
                &format!("chmod 700 {}", dir.display()),
            ));
        }
    }
    xcsh_loader::check_own_file(dir, "the private directory")
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[test]
    fn it_is_made_private_and_an_old_secret_moved_in_once() {
        let data = tempfile::tempdir().unwrap();
        let data = data.path();
        std::fs::write(data.join("journal.key"), "old key\n").unwrap();
        let dir = prepare(data).unwrap();
        assert_eq!(dir, data.join("private"));
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert_eq!(
            std::fs::read_to_string(dir.join("journal.key")).unwrap(),
            "old key\n"
        );
        assert!(!data.join("journal.key").exists());
        assert!(!dir.join("mcp-token").exists());
        // A newer one is never replaced by an old one left beside it.
        std::fs::write(data.join("journal.key"), "stale\n").unwrap();
        prepare(data).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("journal.key")).unwrap(),
            "old key\n"
        );
    }

    #[test]
    fn a_link_or_a_directory_others_may_read_is_refused() {
        let data = tempfile::tempdir().unwrap();
        let data = data.path();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), data.join("private")).unwrap();
        let dir = data.join("private");
        assert_eq!(
            prepare(data).unwrap_err(),
            format!(
                "refusing the private directory that is a symbolic link: {} (fix: remove it; xcsh makes it again)",
                dir.display()
            )
        );
        std::fs::remove_file(&dir).unwrap();
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o750)).unwrap();
        assert_eq!(
            prepare(data).unwrap_err(),
            format!(
                "refusing the private directory open to its group or others: {} (fix: chmod 700 {})",
                dir.display(),
                dir.display()
            )
        );
    }
}
