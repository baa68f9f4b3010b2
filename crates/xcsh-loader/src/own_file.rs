//! xcsh's own files (its config, pack registry and trust record) held to
//! the rules its packs are held to ([`safe_path`](crate::safe_path)):
//! whoever can write one of them decides which code the agent runs, so
//! the file, and every directory above it, must be owned by root or the
//! user and writable by neither group nor others (a sticky directory
//! such as `/tmp` excepted). A link is judged where it leads.

use std::path::Path;

use crate::LoadError;

/// Checks xcsh's own file at `path`, named `what` in the message (e.g.
/// `the config file`). A file that does not exist passes: there is
/// nothing to read.
///
/// # Errors
///
/// One line naming the file or directory at fault and the fix, in the
/// words of the pack rules: `refusing the config file writable by other
/// users: /home/me/.config/xcsh (fix: chmod o-w /home/me/.config/xcsh)`.
pub fn check_own_file(path: &Path, what: &str) -> Result<(), String> {
    let canonical = match std::fs::canonicalize(path) {
        Ok(canonical) => canonical,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(format!("cannot examine {what} {}: {error}", path.display())),
    };
    let metadata = std::fs::metadata(&canonical)
        .map_err(|error| format!("cannot examine {what} {}: {error}", path.display()))?;
    crate::safe_path::check(&canonical, &metadata).map_err(|error| match error {
        LoadError::Untrusted { path } => format!(
            "refusing {what} writable by other users: {} (fix: chmod o-w {})",
            path.display(),
            path.display()
        ),
        LoadError::GroupWritable { path } => format!(
            "refusing {what} writable by its group: {} (fix: chmod g-w {})",
            path.display(),
            path.display()
        ),
        LoadError::ForeignOwner { path, uid } => format!(
            "refusing {what} whose path is owned by another user (uid {uid}): {} (fix: remove it and write your own)",
            path.display()
        ),
        other => format!("cannot examine {what} {}: {other}", path.display()),
    })
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    #[test]
    fn a_file_or_directory_others_can_write_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("xcsh");
        std::fs::create_dir(&sub).unwrap();
        let file = sub.join("config.toml");
        assert_eq!(check_own_file(&file, "the config file"), Ok(()));
        std::fs::write(&file, "").unwrap();
        assert_eq!(check_own_file(&file, "the config file"), Ok(()));
        let canonical = std::fs::canonicalize(&file).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert_eq!(
            check_own_file(&file, "the config file"),
            Err(format!(
                "refusing the config file writable by other users: {} (fix: chmod o-w {})",
                canonical.display(),
                canonical.display()
            ))
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o770)).unwrap();
        let parent = canonical.parent().unwrap();
        assert_eq!(
            check_own_file(&file, "the config file"),
            Err(format!(
                "refusing the config file writable by its group: {} (fix: chmod g-w {})",
                parent.display(),
                parent.display()
            ))
        );
    }
}
