//! Which pack files the loader will open at all.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::LoadError;
use crate::pack_file::PackFile;

/// What a pack file must satisfy before it is opened as a library.
///
/// Always: the ownership and mode rules of OpenSSH's StrictModes (the file
/// and every directory above it owned by root or the user, writable by
/// neither group nor others, except a sticky directory such as `/tmp`).
/// Optionally:
///
/// - the user's allow-list ([`with_allow_list`](Self::with_allow_list)):
///   only the packs listed load, each pinned to the SHA-256 of its file;
/// - projects' allow-lists
///   ([`with_project_allow_list`](Self::with_project_allow_list)), which
///   only narrow: a pack must be on every list there is;
/// - hashes recorded when a project was trusted
///   ([`with_trusted_pin`](Self::with_trusted_pin));
/// - hashes pinned by `xcsh pack add`
///   ([`with_installed_pin`](Self::with_installed_pin)).
///
/// Every check reads the one open file that is then loaded.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TrustPolicy {
    allow_list: Option<HashMap<PathBuf, String>>,
    project_lists: Vec<(PathBuf, HashMap<PathBuf, String>)>,
    trusted_pins: HashMap<PathBuf, (PathBuf, String)>,
    installed_pins: HashMap<PathBuf, String>,
}

impl TrustPolicy {
    /// The default policy: the ownership and mode rules only.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows only the packs listed, each with the lowercase hex SHA-256 of
    /// its file. Paths are canonicalised here when they exist.
    pub fn with_allow_list(mut self, allow: impl IntoIterator<Item = (PathBuf, String)>) -> Self {
        self.allow_list = Some(pins(allow));
        self
    }

    /// Adds the allow-list of the project config at `config`: a pack must
    /// be on it too (and on the user's, when there is one), so a project
    /// can narrow what loads and never widen it.
    pub fn with_project_allow_list(
        mut self,
        config: PathBuf,
        allow: impl IntoIterator<Item = (PathBuf, String)>,
    ) -> Self {
        self.project_lists.push((config, pins(allow)));
        self
    }

    /// Requires the pack at `path` to have the SHA-256 `hash` recorded when
    /// the user trusted the project directory `project`.
    pub fn with_trusted_pin(mut self, path: &Path, hash: &str, project: &Path) -> Self {
        let (path, hash) = canonical_pin(path.to_path_buf(), hash);
        self.trusted_pins
            .insert(path, (project.to_path_buf(), hash));
        self
    }

    /// Requires the pack at `path` (canonical) to have the SHA-256 `hash`
    /// that `xcsh pack add` recorded for it.
    pub fn with_installed_pin(mut self, path: &Path, hash: &str) -> Self {
        let (path, hash) = canonical_pin(path.to_path_buf(), hash);
        self.installed_pins.insert(path, hash);
        self
    }

    /// Checks the pack file at `path` (opening it only to check it).
    ///
    /// # Errors
    ///
    /// See [`check_file`](Self::check_file).
    pub fn check(&self, path: &Path) -> Result<(), LoadError> {
        self.check_file(&PackFile::open(path)?)
    }

    /// Checks the open pack `file`.
    ///
    /// # Errors
    ///
    /// [`LoadError::Untrusted`], [`LoadError::GroupWritable`],
    /// [`LoadError::ForeignOwner`], [`LoadError::NotAllowed`],
    /// [`LoadError::HashMismatch`], [`LoadError::NotAllowedByProject`],
    /// [`LoadError::ProjectHashMismatch`],
    /// [`LoadError::ChangedSinceTrusted`] or
    /// [`LoadError::ChangedSinceAdded`].
    pub(crate) fn check_file(&self, file: &PackFile) -> Result<(), LoadError> {
        crate::safe_path::check(file.path(), file.metadata())?;
        let path = file.path();
        let pinned = self.trusted_pins.get(path);
        let installed = self.installed_pins.get(path);
        if self.allow_list.is_none()
            && self.project_lists.is_empty()
            && pinned.is_none()
            && installed.is_none()
        {
            return Ok(());
        }
        // Unlisted packs are refused before their contents are read.
        if let Some(list) = &self.allow_list
            && !list.contains_key(path)
        {
            return Err(LoadError::NotAllowed);
        }
        for (config, list) in &self.project_lists {
            if !list.contains_key(path) {
                return Err(LoadError::NotAllowedByProject {
                    config: config.clone(),
                });
            }
        }
        let actual = file.sha256()?;
        if let Some(expected) = self.allow_list.as_ref().and_then(|l| l.get(path))
            && *expected != actual
        {
            return Err(LoadError::HashMismatch {
                expected: expected.clone(),
                actual,
            });
        }
        for (config, list) in &self.project_lists {
            let expected = &list[path];
            if *expected != actual {
                return Err(LoadError::ProjectHashMismatch {
                    config: config.clone(),
                    expected: expected.clone(),
                    actual,
                });
            }
        }
        if let Some((project, expected)) = pinned
            && *expected != actual
        {
            return Err(LoadError::ChangedSinceTrusted {
                project: project.clone(),
                expected: expected.clone(),
                actual,
            });
        }
        if let Some(expected) = installed
            && *expected != actual
        {
            return Err(LoadError::ChangedSinceAdded {
                path: path.to_path_buf(),
                expected: expected.clone(),
                actual,
            });
        }
        Ok(())
    }
}

fn pins(allow: impl IntoIterator<Item = (PathBuf, String)>) -> HashMap<PathBuf, String> {
    allow
        .into_iter()
        .map(|(path, hash)| canonical_pin(path, &hash))
        .collect()
}

fn canonical_pin(path: PathBuf, hash: &str) -> (PathBuf, String) {
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    (path, hash.trim().to_ascii_lowercase())
}

impl fmt::Debug for TrustPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrustPolicy")
            .field("allow_list", &self.allow_list.as_ref().map(HashMap::len))
            .field("project_lists", &self.project_lists.len())
            .field("trusted_pins", &self.trusted_pins.len())
            .field("installed_pins", &self.installed_pins.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::sha256_hex;

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
    fn an_installed_pin_refuses_a_changed_file_and_names_the_fix() {
        let dir = std::env::temp_dir().join(format!("xcsh-installed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pack = dir.join("libp.so");
        std::fs::write(&pack, b"abc").unwrap();
        let policy = TrustPolicy::new().with_installed_pin(&pack, &sha256_hex(b"abc"));
        policy.check(&pack).unwrap();
        std::fs::write(&pack, b"abd").unwrap();
        let canonical = std::fs::canonicalize(&pack).unwrap();
        assert_eq!(
            policy.check(&pack).unwrap_err().to_string(),
            format!(
                "changed since it was added (SHA-256 {}, added {}); to use it, run: xcsh pack add {}",
                sha256_hex(b"abd"),
                sha256_hex(b"abc"),
                canonical.display()
            )
        );
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
