//! Paths on the wire as their bytes, so a working directory or a file
//! whose name is not UTF-8 reaches the other side exactly (serde's own
//! `PathBuf` refuses such a path).
//!
//! A UTF-8 path is written as a string, any other as bytes: in postcard
//! both are a length and the bytes, so every message that carried a path
//! before is the same on the wire; in JSON (the namespace plan) a UTF-8
//! path stays a string and any other is an array of byte values. Reading
//! accepts both forms.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserializer, Serializer};

/// Writes `path` as a string when it is UTF-8, else as its bytes.
pub(crate) fn serialize<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    match path.to_str() {
        Some(text) => serializer.serialize_str(text),
        None => serializer.serialize_bytes(&bytes_of(path)),
    }
}

/// Reads a path written by [`serialize`] (or as serde writes a `PathBuf`).
pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
    deserializer.deserialize_bytes(PathVisitor)
}

/// A list of paths, each as [`serialize`] writes it.
pub(crate) mod list {
    use std::path::PathBuf;

    use serde::ser::SerializeSeq as _;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes each path as [`serialize`](super::serialize) does.
    pub(crate) fn serialize<S: Serializer>(
        paths: &[PathBuf],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(paths.len()))?;
        for path in paths {
            seq.serialize_element(&WireRef(path))?;
        }
        seq.end()
    }

    /// Reads paths written by [`serialize`].
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<PathBuf>, D::Error> {
        Ok(Vec::<Wire>::deserialize(deserializer)?
            .into_iter()
            .map(|wire| wire.0)
            .collect())
    }

    /// One path in its wire form, read.
    #[derive(serde::Deserialize)]
    struct Wire(#[serde(with = "super")] PathBuf);

    /// One path in its wire form, written.
    #[derive(serde::Serialize)]
    struct WireRef<'a>(#[serde(with = "super")] &'a std::path::Path);
}

struct PathVisitor;

impl<'de> Visitor<'de> for PathVisitor {
    type Value = PathBuf;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a path as a string or bytes")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<PathBuf, E> {
        Ok(PathBuf::from(text))
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<PathBuf, E> {
        path_of(bytes.to_vec())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PathBuf, A::Error> {
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        path_of(bytes)
    }
}

#[cfg(unix)]
fn bytes_of(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt as _;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn bytes_of(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

#[cfg(unix)]
fn path_of<E: de::Error>(bytes: Vec<u8>) -> Result<PathBuf, E> {
    use std::os::unix::ffi::OsStringExt as _;
    Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_of<E: de::Error>(bytes: Vec<u8>) -> Result<PathBuf, E> {
    String::from_utf8(bytes)
        .map(PathBuf::from)
        .map_err(|_| E::custom("a path that is not UTF-8 on a system whose paths are Unicode"))
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::ffi::OsStrExt as _;
    use std::path::PathBuf;

    use crate::{MountStep, NamespacePlan};

    fn raw(bytes: &[u8]) -> PathBuf {
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }

    #[test]
    fn a_utf8_path_is_the_same_on_the_wire_as_before() {
        let path = PathBuf::from("/w/café");
        assert_eq!(
            postcard::to_stdvec(&Tagged(path.clone())).unwrap(),
            postcard::to_stdvec(&path).unwrap()
        );
        let plan = NamespacePlan {
            cwd: path,
            ..NamespacePlan::default()
        };
        assert!(
            serde_json::to_string(&plan)
                .unwrap()
                .contains(r#""cwd":"/w/café""#)
        );
    }

    #[test]
    fn a_path_that_is_not_utf8_arrives_exactly() {
        let path = raw(b"/w/caf\xe9");
        let wire = postcard::to_stdvec(&Tagged(path.clone())).unwrap();
        assert_eq!(postcard::from_bytes::<Tagged>(&wire).unwrap().0, path);
        let plan = NamespacePlan {
            cwd: path.clone(),
            mounts: vec![MountStep::Bind {
                path: path.clone(),
                read_only: false,
                if_exists: false,
            }],
            ..NamespacePlan::default()
        };
        let json = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<NamespacePlan>(&json).unwrap(), plan);
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Tagged(#[serde(with = "super")] PathBuf);
}
