//! The user's record of trusted project directories
//! (`trusted-projects.json` in the user's xcsh data directory), written by
//! `xcsh trust` and read at every start-up.
//!
//! Each trusted directory is recorded with what was trusted: the SHA-256
//! of its `.xcsh/config.toml` (or none), of its pack registry
//! `.xcsh/packs.json` (or none) and of every pack file its project sources
//! named then. A changed config makes the project untrusted again; a
//! changed registry is skipped; a changed pack is refused by the loader; a
//! new pack is skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

/// The record's file name inside the user's xcsh data directory.
pub const TRUST_FILE_NAME: &str = "trusted-projects.json";

/// The longest trust file xcsh reads, in bytes (16 MiB).
pub const MAX_TRUST_BYTES: u64 = 16 << 20;

/// What was trusted in one project directory.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectRecord {
    /// The SHA-256 of `.xcsh/config.toml`, or `None` if there was none.
    pub config: Option<String>,
    /// The SHA-256 of `.xcsh/packs.json` (the project's installed packs),
    /// or `None` if there was none. xcsh records it again whenever it
    /// writes that file itself (`xcsh pack add --project`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// Every pack file the project named, by canonical path, with its
    /// SHA-256.
    #[serde(default, with = "path_keys")]
    pub packs: BTreeMap<PathBuf, String>,
}

/// Every trusted project directory, by canonical path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustStore {
    /// The record's format version (1).
    pub version: u32,
    /// The trusted directories.
    #[serde(default, with = "path_keys")]
    pub projects: BTreeMap<PathBuf, ProjectRecord>,
}

impl TrustStore {
    /// The record at `path`; empty if there is no such file.
    ///
    /// # Errors
    ///
    /// `invalid trust file {path}: …`; `refusing the trust file …` when it
    /// is not a regular file, is longer than [`MAX_TRUST_BYTES`] or others
    /// could have written it (see [`xcsh_loader::OwnFile::read`]).
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let Some(bytes) = xcsh_loader::OwnFile::new(path, "the trust file", MAX_TRUST_BYTES)
            .read()
            .map_err(anyhow::Error::msg)?
        else {
            return Ok(Self {
                version: 1,
                ..Self::default()
            });
        };
        serde_json::from_slice(&bytes)
            .map_err(|e| anyhow::anyhow!("invalid trust file {}: {e}", path.display()))
    }

    /// Writes the record to `path` (a new file renamed over the old one,
    /// readable by the user only), creating its directory.
    ///
    /// # Errors
    ///
    /// `cannot write trust file {path}: …`.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        crate::private_file::write_json(path, self)
            .with_context(|| format!("cannot write trust file {}", path.display()))
    }

    /// The record of the directory `dir` (canonical), if trusted.
    pub fn get(&self, dir: &Path) -> Option<&ProjectRecord> {
        self.projects.get(dir)
    }
}

/// Paths as JSON object keys, bytes end to end: a path that is UTF-8 is
/// written as it is (always absolute: it begins with `/`); any other is
/// written `bytes:` and the hexadecimal of its bytes, which no absolute
/// path can be mistaken for.
mod path_keys {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    const PREFIX: &str = "bytes:";

    pub fn serialize<V: Serialize, S: Serializer>(
        map: &BTreeMap<PathBuf, V>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_map(map.iter().map(|(path, value)| (encode(path), value)))
    }

    pub fn deserialize<'de, V: Deserialize<'de>, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<PathBuf, V>, D::Error> {
        let map = BTreeMap::<String, V>::deserialize(deserializer)?;
        map.into_iter()
            .map(|(key, value)| Ok((decode(&key).map_err(serde::de::Error::custom)?, value)))
            .collect()
    }

    fn encode(path: &std::path::Path) -> String {
        if let Some(text) = path.to_str() {
            return text.to_owned();
        }
        #[cfg(unix)]
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
        #[cfg(not(unix))]
        let bytes = path.to_string_lossy().into_owned().into_bytes();
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        format!("{PREFIX}{hex}")
    }

    fn decode(key: &str) -> Result<PathBuf, String> {
        let Some(hex) = key.strip_prefix(PREFIX) else {
            return Ok(PathBuf::from(key));
        };
        let bytes: Option<Vec<u8>> = (hex.len() % 2 == 0 && hex.is_ascii())
            .then(|| {
                (0..hex.len() / 2)
                    .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                    .collect()
            })
            .flatten();
        let bytes = bytes.ok_or_else(|| format!("not a path in hexadecimal: {key}"))?;
        #[cfg(unix)]
        return Ok(PathBuf::from(
            <std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes),
        ));
        #[cfg(not(unix))]
        return Ok(PathBuf::from(String::from_utf8_lossy(&bytes).into_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_kept_byte_for_byte() {
        use std::os::unix::ffi::OsStrExt as _;
        let odd = PathBuf::from(std::ffi::OsStr::from_bytes(b"/tmp/w\xff"));
        let mut store = TrustStore {
            version: 1,
            ..TrustStore::default()
        };
        let mut record = ProjectRecord::default();
        record.packs.insert(odd.join("p.so"), "ab".to_owned());
        store.projects.insert(odd.clone(), record);
        store
            .projects
            .insert(PathBuf::from("/srv/ok"), ProjectRecord::default());
        let text = serde_json::to_string(&store).unwrap();
        assert!(text.contains("\"bytes:2f746d702f77ff\""), "{text}");
        assert!(text.contains("\"/srv/ok\""), "{text}");
        assert_eq!(serde_json::from_str::<TrustStore>(&text).unwrap(), store);
    }

    #[test]
    fn a_missing_file_is_an_empty_record_and_a_saved_one_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data/xcsh").join(TRUST_FILE_NAME);
        let mut store = TrustStore::load(&path).unwrap();
        assert!(store.projects.is_empty());
        store.projects.insert(
            "/src/p".into(),
            ProjectRecord {
                config: Some("ab".into()),
                registry: Some("ef".into()),
                packs: BTreeMap::from([("/src/p/.xcsh/plugins/liba.so".into(), "cd".into())]),
            },
        );
        store.save(&path).unwrap();
        assert_eq!(TrustStore::load(&path).unwrap(), store);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_record_written_before_project_registries_reads_as_having_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TRUST_FILE_NAME);
        std::fs::write(
            &path,
            r#"{"version": 1, "projects": {"/src/p": {"config": null, "packs": {}}}}"#,
        )
        .unwrap();
        let store = TrustStore::load(&path).unwrap();
        assert_eq!(
            store.get(Path::new("/src/p")),
            Some(&ProjectRecord::default())
        );
        // And one without a registry is written as before.
        store.save(&path).unwrap();
        assert!(!std::fs::read_to_string(&path).unwrap().contains("registry"));
    }

    #[test]
    fn an_invalid_file_is_a_one_line_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TRUST_FILE_NAME);
        std::fs::write(&path, "{\"version\": 1, \"projects\": []}").unwrap();
        let error = TrustStore::load(&path).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "invalid trust file {}: invalid type: sequence, expected a map at line 1 column 27",
                path.display()
            )
        );
    }
}
