//! Writing the agent's own records (trusted projects, installed packs):
//! whole or not at all, readable by the user only.

use std::io::{self, Write as _};
use std::path::Path;

use serde::Serialize;

/// Writes `value` as pretty JSON to `path`: into a new file beside it
/// (created readable and writable by the user only), flushed to disk, then
/// renamed over `path`, so a reader sees the old record or the new one,
/// never half of one. Creates the directory.
///
/// # Errors
///
/// The directory cannot be created, or the file cannot be written or
/// renamed; the temporary file is removed.
pub fn write_json(path: &Path, value: &impl Serialize) -> io::Result<()> {
    write_bytes(path, json_text(value)?.as_bytes())
}

/// `value` as [`write_json`] writes it: pretty JSON and a newline.
///
/// # Errors
///
/// `value` cannot be serialized.
pub fn json_text(value: &impl Serialize) -> serde_json::Result<String> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    Ok(text)
}

/// Writes `bytes` to `path` as [`write_json`] does: whole or not at all,
/// readable by the user only.
///
/// # Errors
///
/// See [`write_json`].
pub fn write_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // `tempfile` creates the file with mode 0600 on Unix.
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_pretty_json_readable_by_the_user_only_and_replaces_the_old() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("record.json");
        write_json(&path, &serde_json::json!({"a": 1})).unwrap();
        write_json(&path, &serde_json::json!({"a": 2})).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\n  \"a\": 2\n}\n"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(
            std::fs::read_dir(path.parent().unwrap()).unwrap().count(),
            1
        );
    }
}
