//! Which pack files the loader will open at all.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::LoadError;

/// What a pack file must satisfy before it is opened.
///
/// By default a pack file, or the directory holding it, that other users
/// can write is refused: anyone could swap in code the agent would run. An
/// optional allow-list pins each allowed pack's canonical path to the
/// SHA-256 of its contents; with a list, packs not on it are refused too.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TrustPolicy {
    allow_list: Option<HashMap<PathBuf, String>>,
}

impl TrustPolicy {
    /// The default policy: refuse files and directories writable by others.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows only the packs listed, each with the lowercase hex SHA-256 of
    /// its file. Paths are canonicalised here when they exist.
    pub fn with_allow_list(mut self, allow: impl IntoIterator<Item = (PathBuf, String)>) -> Self {
        self.allow_list = Some(
            allow
                .into_iter()
                .map(|(path, hash)| {
                    let path = std::fs::canonicalize(&path).unwrap_or(path);
                    (path, hash.trim().to_ascii_lowercase())
                })
                .collect(),
        );
        self
    }

    /// Checks the pack file at `path` (which exists).
    ///
    /// # Errors
    ///
    /// [`LoadError::Untrusted`], [`LoadError::NotAllowed`] or
    /// [`LoadError::HashMismatch`].
    pub fn check(&self, path: &Path) -> Result<(), LoadError> {
        let canonical =
            std::fs::canonicalize(path).map_err(|e| LoadError::Unreadable(e.to_string()))?;
        refuse_writable_by_others(&canonical)?;
        if let Some(parent) = canonical.parent() {
            refuse_writable_by_others(parent)?;
        }
        let Some(allow_list) = &self.allow_list else {
            return Ok(());
        };
        let expected = allow_list.get(&canonical).ok_or(LoadError::NotAllowed)?;
        let bytes = std::fs::read(&canonical).map_err(|e| LoadError::Unreadable(e.to_string()))?;
        let actual = sha256_hex(&bytes);
        if &actual != expected {
            return Err(LoadError::HashMismatch {
                expected: expected.clone(),
                actual,
            });
        }
        Ok(())
    }
}

/// The lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(unix)]
fn refuse_writable_by_others(path: &Path) -> Result<(), LoadError> {
    use std::os::unix::fs::PermissionsExt;

    let mode = std::fs::metadata(path)
        .map_err(|e| LoadError::Unreadable(e.to_string()))?
        .permissions()
        .mode();
    const OTHERS_WRITE: u32 = 0o002;
    // A sticky directory (like /tmp) lets others add files but not replace
    // ours, so it is safe to load from.
    const STICKY: u32 = 0o1000;
    let is_dir = path.is_dir();
    if mode & OTHERS_WRITE != 0 && !(is_dir && mode & STICKY != 0) {
        return Err(LoadError::Untrusted {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_writable_by_others(_path: &Path) -> Result<(), LoadError> {
    Ok(())
}

impl fmt::Debug for TrustPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrustPolicy")
            .field("allow_list", &self.allow_list.as_ref().map(HashMap::len))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_lowercase_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[cfg(unix)]
    #[test]
    fn files_and_directories_writable_by_others_are_refused() {
        use std::os::unix::fs::PermissionsExt;

        let dir = std::env::temp_dir().join(format!("xcsh-trust-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("libpack.so");
        std::fs::write(&file, b"x").unwrap();
        let policy = TrustPolicy::new();

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o646)).unwrap();
        let canonical = std::fs::canonicalize(&file).unwrap();
        assert_eq!(
            policy.check(&file).unwrap_err(),
            LoadError::Untrusted { path: canonical }
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        policy.check(&file).unwrap();

        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o757)).unwrap();
        assert!(matches!(
            policy.check(&file).unwrap_err(),
            LoadError::Untrusted { .. }
        ));
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
        policy.check(&file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_allow_list_pins_hashes() {
        let dir = std::env::temp_dir().join(format!("xcsh-allow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (listed, unlisted) = (dir.join("a.so"), dir.join("b.so"));
        std::fs::write(&listed, b"abc").unwrap();
        std::fs::write(&unlisted, b"abc").unwrap();
        let good = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD".to_owned();
        let policy = TrustPolicy::new().with_allow_list([(listed.clone(), good)]);
        policy.check(&listed).unwrap();
        assert_eq!(policy.check(&unlisted).unwrap_err(), LoadError::NotAllowed);
        std::fs::write(&listed, b"abd").unwrap();
        assert_eq!(
            policy.check(&listed).unwrap_err().to_string(),
            format!(
                "SHA-256 {} does not match the allow-list (expected ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad)",
                sha256_hex(b"abd")
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
