//! The registry of installed packs (`packs.json`): what `xcsh pack add`
//! checked and pinned, read at every start-up instead of opening the
//! packs.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use xcsh_core::ToolHints;

use crate::schema::RecordedSchema;
use xcsh_text::and_list;

/// The registry's file name, in the user's xcsh data directory and in a
/// project's `.xcsh` directory.
pub const REGISTRY_FILE_NAME: &str = "packs.json";

/// The registry format this build writes and reads.
pub const REGISTRY_VERSION: u32 = 1;

/// The longest pack registry xcsh reads, in bytes (64 MiB: it holds every
/// installed pack's schemas).
pub const MAX_REGISTRY_BYTES: u64 = 64 << 20;

/// Every installed pack of one registry, by pack name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// The format version ([`REGISTRY_VERSION`]).
    pub version: u32,
    /// The packs, by name.
    #[serde(default)]
    pub packs: BTreeMap<String, PackRecord>,
}

/// One installed pack as `xcsh pack add` found it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackRecord {
    /// The pack's name (its crate name).
    pub name: String,
    /// The pack's own version.
    pub version: String,
    /// The `xcsh-plugin-api` ABI version it declares.
    pub abi_version: String,
    /// The library's canonical path.
    pub path: PathBuf,
    /// What the file was when it was added.
    pub file: FileStamp,
    /// Whether it runs in a process of its own.
    pub isolated: bool,
    /// Its tools, in the pack's order.
    pub tools: Vec<ToolRecord>,
    /// Why the library failed to open at its first use since it was added
    /// (cleared by adding it again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// What identifies a pack file: cheap to compare first (size, time,
/// inode), then its SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileStamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time.
    pub modified: SystemTime,
    /// Inode number (0 where the OS has none).
    pub inode: u64,
    /// Lowercase hex SHA-256 of the contents.
    pub sha256: String,
}

/// One tool's descriptor: everything a session offers without opening
/// the pack.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRecord {
    /// Name.
    pub name: String,
    /// Label.
    pub label: String,
    /// Description.
    pub description: String,
    /// JSON schema of its arguments, parsed when first asked for.
    pub parameters: RecordedSchema,
    /// What it says about its effects.
    pub hints: ToolHints,
}

/// How the file at a recorded path compares with its record, by size,
/// modification time and inode only (no hashing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    /// Same size, time and inode.
    Unchanged,
    /// No file there.
    Missing,
    /// A different file, or the same one rewritten: what differs.
    Changed(String),
}

impl FileStamp {
    /// Size, time and inode of `metadata`, with `sha256`.
    pub fn of(metadata: &std::fs::Metadata, sha256: String) -> Self {
        Self {
            size: metadata.len(),
            modified: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            inode: inode(metadata),
            sha256,
        }
    }

    /// How the file at `path` compares with this stamp (size, time, inode).
    pub fn compare(&self, path: &Path) -> FileState {
        match std::fs::metadata(path) {
            Ok(metadata) => self.compare_metadata(&metadata),
            Err(error) if error.kind() == io::ErrorKind::NotFound => FileState::Missing,
            Err(error) => FileState::Changed(format!("cannot read it: {error}")),
        }
    }

    /// [`compare`](Self::compare) with the metadata already read.
    pub fn compare_metadata(&self, metadata: &std::fs::Metadata) -> FileState {
        let mut differs = Vec::new();
        if metadata.len() != self.size {
            differs.push("size");
        }
        if metadata.modified().ok() != Some(self.modified) {
            differs.push("modification time");
        }
        if inode(metadata) != self.inode {
            differs.push("inode");
        }
        if differs.is_empty() {
            FileState::Unchanged
        } else {
            FileState::Changed(format!("its {} changed", and_list(&differs)))
        }
    }
}

#[cfg(unix)]
fn inode(metadata: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(metadata)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

impl Registry {
    /// The registry at `path`; empty if there is no such file.
    ///
    /// # Errors
    ///
    /// `invalid pack registry {path}: …`; `refusing the pack registry …`
    /// when it is not a regular file, is longer than
    /// [`MAX_REGISTRY_BYTES`] or others could have written it (see
    /// [`xcsh_loader::OwnFile::read`]).
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        match xcsh_loader::OwnFile::new(path, "the pack registry", MAX_REGISTRY_BYTES)
            .read()
            .map_err(anyhow::Error::msg)?
        {
            Some(bytes) => Self::parse(path, &bytes),
            None => Ok(Self {
                version: REGISTRY_VERSION,
                ..Self::default()
            }),
        }
    }

    /// The registry in `bytes`, read from `path`.
    ///
    /// # Errors
    ///
    /// `invalid pack registry {path}: …`.
    pub fn parse(path: &Path, bytes: &[u8]) -> anyhow::Result<Self> {
        let invalid = |e: &dyn std::fmt::Display| {
            anyhow::anyhow!("invalid pack registry {}: {e}", path.display())
        };
        // UTF-8 checked once for the whole file: parsing a `&str` skips
        // checking each string again (most of the file is schemas).
        let text = std::str::from_utf8(bytes).map_err(|e| invalid(&e))?;
        let registry: Self = serde_json::from_str(text).map_err(|e| invalid(&e))?;
        if registry.version != REGISTRY_VERSION {
            anyhow::bail!(
                "invalid pack registry {}: format version {} (this xcsh reads {REGISTRY_VERSION})",
                path.display(),
                registry.version
            );
        }
        Ok(registry)
    }

    /// Writes the registry to `path` (a new file renamed over the old one,
    /// readable by the user only), creating its directory.
    ///
    /// # Errors
    ///
    /// `cannot write pack registry {path}: …`.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        crate::private_file::write_json(path, self)
            .with_context(|| format!("cannot write pack registry {}", path.display()))
    }

    /// The installed pack that offers the tool `tool`, other than the pack
    /// called `except`.
    pub fn owner_of(&self, tool: &str, except: &str) -> Option<&PackRecord> {
        self.packs
            .values()
            .filter(|pack| pack.name != except)
            .find(|pack| pack.tools.iter().any(|t| t.name == tool))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_registry_is_empty_and_a_saved_one_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data").join(REGISTRY_FILE_NAME);
        let mut registry = Registry::load(&path).unwrap();
        assert!(registry.packs.is_empty());
        let pack = dir.path().join("libp.so");
        std::fs::write(&pack, b"abc").unwrap();
        let metadata = std::fs::metadata(&pack).unwrap();
        registry.packs.insert(
            "p".into(),
            PackRecord {
                name: "p".into(),
                version: "0.1.0".into(),
                abi_version: "1.0.0".into(),
                path: pack.clone(),
                file: FileStamp::of(&metadata, "ab".into()),
                isolated: false,
                tools: vec![ToolRecord {
                    name: "t".into(),
                    label: "T".into(),
                    description: "d".into(),
                    parameters: serde_json::json!({"type": "object"}).into(),
                    hints: ToolHints::default(),
                }],
                failure: None,
            },
        );
        registry.save(&path).unwrap();
        assert_eq!(Registry::load(&path).unwrap(), registry);
        assert_eq!(registry.owner_of("t", "q").unwrap().name, "p");
        assert!(registry.owner_of("t", "p").is_none());
    }

    #[test]
    fn a_stamp_tells_unchanged_missing_and_changed_files_apart() {
        let dir = tempfile::tempdir().unwrap();
        let pack = dir.path().join("libp.so");
        std::fs::write(&pack, b"abc").unwrap();
        let stamp = FileStamp::of(&std::fs::metadata(&pack).unwrap(), String::new());
        assert_eq!(stamp.compare(&pack), FileState::Unchanged);
        std::fs::write(&pack, b"abcd").unwrap();
        let FileState::Changed(what) = stamp.compare(&pack) else {
            panic!("not changed");
        };
        assert!(what.starts_with("its size"), "{what}");
        std::fs::remove_file(&pack).unwrap();
        assert_eq!(stamp.compare(&pack), FileState::Missing);
    }

    #[test]
    fn another_format_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(REGISTRY_FILE_NAME);
        std::fs::write(&path, r#"{"version": 9, "packs": {}}"#).unwrap();
        assert_eq!(
            Registry::load(&path).unwrap_err().to_string(),
            format!(
                "invalid pack registry {}: format version 9 (this xcsh reads 1)",
                path.display()
            )
        );
    }

    #[test]
    fn a_registry_that_is_not_utf8_or_not_json_is_refused_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(REGISTRY_FILE_NAME);
        let shown = path.display();
        std::fs::write(&path, b"{\"version\": 1, \"packs\": {\"\xff\": 1}}").unwrap();
        assert_eq!(
            Registry::load(&path).unwrap_err().to_string(),
            format!(
                "invalid pack registry {shown}: invalid utf-8 sequence of 1 bytes from index 26"
            )
        );
        std::fs::write(&path, r#"{"version": 1, "packs": {"p": {"name": 5}}}"#).unwrap();
        let error = Registry::load(&path).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "invalid pack registry {shown}: invalid type: integer `5`"
            )),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
    }
}
