//! Finding pack libraries on disk by the OS's library file names.

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::io;
use std::path::{Path, PathBuf};

/// The library file name of a pack crate on this OS, e.g. `batch_rename`
/// gives `libbatch_rename.so` on Linux and `batch_rename.dll` on Windows.
pub fn pack_file_name(crate_name: &str) -> String {
    format!("{DLL_PREFIX}{}{DLL_SUFFIX}", crate_name.replace('-', "_"))
}

/// True if `path`'s file name looks like a library on this OS.
pub fn is_library_file_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|name| {
            name.starts_with(DLL_PREFIX)
                && name.ends_with(DLL_SUFFIX)
                && name.len() > DLL_PREFIX.len() + DLL_SUFFIX.len()
        })
}

/// The library files directly inside `dir`, sorted by name so load order
/// (and so name-conflict winners) is stable.
///
/// # Errors
///
/// The I/O error of reading `dir`.
pub fn pack_files_in(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && is_library_file_name(&path) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_os() {
        let name = pack_file_name("batch-rename");
        assert!(name.starts_with(DLL_PREFIX) && name.ends_with(DLL_SUFFIX));
        assert!(name.contains("batch_rename"));
        assert!(is_library_file_name(Path::new(&name)));
        assert!(!is_library_file_name(Path::new("notes.txt")));
        assert!(!is_library_file_name(Path::new(&format!(
            "{DLL_PREFIX}{DLL_SUFFIX}"
        ))));
    }

    #[test]
    fn lists_only_libraries_sorted() {
        let dir = std::env::temp_dir().join(format!("xcsh-discover-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(pack_file_name("nested"))).unwrap();
        for name in [
            pack_file_name("b"),
            pack_file_name("a"),
            "readme.txt".into(),
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let found: Vec<String> = pack_files_in(&dir)
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(found, [pack_file_name("a"), pack_file_name("b")]);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
