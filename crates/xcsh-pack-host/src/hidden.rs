//! Which paths Landlock grants the pack access beneath when some
//! directories must stay out of its reach (xcsh's private directory: the
//! journal's key, the MCP token). Landlock only grants, beneath a path, so
//! a hidden directory is left out by granting, at each directory above
//! it, every other entry: not the one on the way to it, nor any that is
//! (or leads to, as a link or a second mount) that directory or one above
//! it. Reads are granted so (from `/`), and without namespaces writes too
//! where a hidden directory lies beneath a writable one.
//!
//! What this cannot cover: an entry made in a directory above a hidden one
//! after the rules were made has no rule, so the pack cannot read it (nor
//! write it); the directory itself has none either, so the pack cannot
//! make, remove or rename an entry in it, nor list it where listing is
//! handled.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// What to grant for `root` so that every existing directory of `hidden`
/// (canonical paths) beneath it stays out of reach, and nothing else does:
/// `root` itself when none lies beneath it, else the entries beside the
/// way to each.
pub(crate) fn beside(root: &Path, hidden: &[&Path]) -> Vec<PathBuf> {
    let hidden: Vec<&Path> = hidden
        .iter()
        .copied()
        .filter(|path| path.starts_with(root) && path.symlink_metadata().is_ok())
        .collect();
    if hidden.is_empty() {
        return vec![root.to_path_buf()];
    }
    // A hidden directory and every one above it, by identity: an entry
    // that reaches one of them another way gets no rule.
    let kept: HashSet<(u64, u64)> = hidden
        .iter()
        .flat_map(|path| path.ancestors())
        .filter_map(|path| std::fs::metadata(path).ok())
        .map(|metadata| (metadata.dev(), metadata.ino()))
        .collect();
    let mut found = Vec::new();
    walk(root, &hidden, &kept, &mut found);
    found
}

fn walk(dir: &Path, hidden: &[&Path], kept: &HashSet<(u64, u64)>, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if hidden.iter().any(|hidden| *hidden == path) {
            continue;
        }
        if hidden.iter().any(|hidden| hidden.starts_with(&path)) {
            walk(&path, hidden, kept, found);
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(metadata) if kept.contains(&(metadata.dev(), metadata.ino())) => {}
            // A dangling link gets no rule.
            Ok(_) => found.push(path),
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_but_the_way_to_a_hidden_directory_is_granted() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for path in ["data/private", "data/plugins", "work/src"] {
            std::fs::create_dir_all(root.join(path)).unwrap();
        }
        std::fs::write(root.join("data/packs.json"), "{}").unwrap();
        std::os::unix::fs::symlink(root.join("data"), root.join("work/data-link")).unwrap();
        std::os::unix::fs::symlink(root.join("data/private"), root.join("private-link")).unwrap();
        std::os::unix::fs::symlink(root.join("data/plugins"), root.join("plugins-link")).unwrap();
        let hidden = root.join("data/private");
        let missing = root.join("gone/private");
        assert_eq!(
            beside(&root.join("work"), &[hidden.as_path()]),
            [root.join("work")]
        );
        assert_eq!(
            beside(&root, &[missing.as_path()]),
            std::slice::from_ref(&root)
        );
        let mut found = beside(&root, &[hidden.as_path(), missing.as_path()]);
        found.sort();
        assert_eq!(
            found,
            [
                root.join("data/packs.json"),
                root.join("data/plugins"),
                root.join("plugins-link"),
                root.join("work"),
            ]
        );
    }
}
