//! What a sandboxed pack must not change although it lies where the pack
//! may write: xcsh's records (`.xcsh/`, `.git/`, and the `.git` of every
//! repository nested in the working directory), its own directories
//! (config, data, cache), its binary and every pack library and pack
//! directory it loads from.
//!
//! The namespace sandbox binds each such path read-only over the writable view. A
//! read-only bind alone is not enough: a pack could rename the directory
//! that holds it and put a file of its own at the old path. So every
//! directory between the writable root and the protected path is bound
//! onto itself too (still writable): a mount point cannot be renamed or
//! removed (`Device or resource busy`).

use std::collections::{BTreeMap, VecDeque};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What the agent keeps read-only for every isolated pack, beyond the
/// working directory's records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Protected {
    /// xcsh's own directories (config, data with the pack registry, cache
    /// with the first-seen records): created empty where missing, so that
    /// no pack can create them.
    pub own_dirs: Vec<PathBuf>,
    /// Pack libraries and the directories packs are loaded from, kept
    /// where they exist.
    pub paths: Vec<PathBuf>,
    /// What no isolated pack may even read: the private directory of
    /// xcsh's data directory (the journal's key, the MCP token), canonical
    /// and made before any pack starts. The namespaces mount an empty
    /// directory over each, after every other mount; without them, the
    /// Landlock rules leave it out (`SandboxRequest::hidden`).
    pub hidden: Vec<PathBuf>,
}

/// `path` with its deepest existing ancestor canonical: where it would be
/// created.
pub fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(found) = std::fs::canonicalize(at) {
            return rest.iter().rev().fold(found, |path, part| path.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// One mount of the sandbox's view, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mount {
    /// `--bind PATH PATH`: a directory made a mount point, still writable.
    Pin(PathBuf),
    /// `--ro-bind PATH PATH`: read-only, with everything beneath it.
    ReadOnly(PathBuf),
}

/// The mounts that keep `protected` unchanged where it lies beneath one of
/// the `writable` roots (canonical paths; a root itself may be protected,
/// and then it is bound read-only whole). A path that does not exist gets
/// no mount (see [`placeholders`](super::placeholders)); a path beneath
/// another protected path is covered by that one.
pub fn mounts(writable: &[PathBuf], protected: &[PathBuf]) -> Vec<Mount> {
    let mut kept: Vec<(PathBuf, &Path)> = protected
        .iter()
        .filter_map(|path| std::fs::canonicalize(path).ok())
        .filter_map(|path| {
            let root = writable.iter().find(|root| path.starts_with(root))?;
            Some((path, root.as_path()))
        })
        .collect();
    kept.sort();
    kept.dedup();
    let covered = |path: &Path, all: &[(PathBuf, &Path)]| {
        all.iter()
            .any(|(other, _)| other != path && path.starts_with(other))
    };
    let kept: Vec<(PathBuf, &Path)> = kept
        .iter()
        .filter(|(path, _)| !covered(path, &kept))
        .cloned()
        .collect();
    let mut pins: Vec<PathBuf> = Vec::new();
    for (path, root) in &kept {
        let mut between = root.to_path_buf();
        let Ok(rest) = path.strip_prefix(root) else {
            continue;
        };
        let parts: Vec<Component<'_>> = rest.components().collect();
        for part in parts.iter().take(parts.len().saturating_sub(1)) {
            between.push(part);
            if !pins.contains(&between) {
                pins.push(between.clone());
            }
        }
    }
    pins.sort_by_key(|path| path.components().count());
    pins.into_iter()
        .map(Mount::Pin)
        .chain(kept.into_iter().map(|(path, _)| Mount::ReadOnly(path)))
        .collect()
}

/// The records of the working directory `cwd`: its `.xcsh/` and `.git/`,
/// protected whether or not they exist yet, then the repositories nested
/// in it ([`nested_repositories`]).
pub fn records_of(cwd: &Path) -> Vec<PathBuf> {
    let mut records = vec![cwd.join(".xcsh"), cwd.join(".git")];
    records.extend(nested_repositories(cwd).iter().cloned());
    records
}

/// How deep below the working directory nested repositories are looked
/// for: a submodule or a vendored checkout sits a few levels down.
pub const NESTED_DEPTH: usize = 6;

/// How many directories the look for nested repositories reads at most
/// (breadth first: the shallowest ones). `BENCHMARKS.md` has its cost.
pub const NESTED_DIRECTORIES: usize = 4000;

/// The `.git` of every repository nested in the working directory `cwd`
/// (a submodule, a vendored checkout, a worktree), whose hooks git would
/// run as the user: a `.git` directory, or a `.git` file (`gitdir: …`)
/// and the directory it names where that lies in `cwd`. Found once per
/// working directory for the agent's life, by a breadth-first walk of at
/// most [`NESTED_DIRECTORIES`] directories within [`NESTED_DEPTH`] levels
/// that follows no link and does not enter a `.git`; a repository beyond
/// those bounds, or made after the walk, is not found.
pub fn nested_repositories(cwd: &Path) -> Arc<Vec<PathBuf>> {
    static FOUND: Mutex<BTreeMap<PathBuf, Arc<Vec<PathBuf>>>> = Mutex::new(BTreeMap::new());
    if let Some(found) = xcsh_core::sync::lock(&FOUND).get(cwd) {
        return Arc::clone(found);
    }
    let found = Arc::new(walk_for_repositories(cwd, NESTED_DEPTH, NESTED_DIRECTORIES));
    xcsh_core::sync::lock(&FOUND)
        .entry(cwd.to_path_buf())
        .or_insert(found)
        .clone()
}

/// The walk behind [`nested_repositories`], bounded by `depth` levels and
/// `budget` directories read.
pub fn walk_for_repositories(cwd: &Path, depth: usize, budget: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut queue = VecDeque::from([(cwd.to_path_buf(), 0usize)]);
    let mut read = 0;
    while let Some((dir, level)) = queue.pop_front() {
        if read == budget {
            break;
        }
        read += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if entry.file_name() == ".git" {
                if dir == cwd {
                    // The working directory's own: always a record.
                    continue;
                }
                if kind.is_file()
                    && let Some(target) = git_dir_named_by(&path)
                    && target.starts_with(cwd)
                {
                    found.push(target);
                }
                if kind.is_dir() || kind.is_file() {
                    found.push(path);
                }
            } else if kind.is_dir() && level + 1 < depth {
                queue.push_back((path, level + 1));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The directory a `.git` file names (`gitdir: PATH`, relative to the
/// file's directory), canonical; `None` if it names none that exists.
fn git_dir_named_by(file: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(file).ok()?;
    let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let dir = file.parent()?.join(named);
    std::fs::canonicalize(dir).ok().filter(|dir| dir.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = std::fs::canonicalize(dir.path()).unwrap();
        (dir, path)
    }

    #[test]
    fn every_directory_down_to_a_protected_file_is_pinned_shallow_first() {
        let (_dir, root) = dir();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::write(root.join("target/debug/xcsh"), "").unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        let protected = [root.join("target/debug/xcsh"), root.join(".git")];
        assert_eq!(
            mounts(std::slice::from_ref(&root), &protected),
            [
                Mount::Pin(root.join("target")),
                Mount::Pin(root.join("target/debug")),
                Mount::ReadOnly(root.join(".git")),
                Mount::ReadOnly(root.join("target/debug/xcsh")),
            ]
        );
    }

    #[test]
    fn paths_outside_the_writable_roots_missing_or_covered_get_nothing() {
        let (_dir, root) = dir();
        let (_other, outside) = dir();
        std::fs::create_dir_all(root.join(".xcsh/packs")).unwrap();
        std::fs::write(root.join(".xcsh/packs/liba.so"), "").unwrap();
        let protected = [
            root.join(".xcsh/packs/liba.so"),
            root.join(".xcsh"),
            root.join(".git"),
            outside.clone(),
        ];
        assert_eq!(
            mounts(std::slice::from_ref(&root), &protected),
            [Mount::ReadOnly(root.join(".xcsh"))]
        );
    }

    #[test]
    fn a_protected_root_is_bound_read_only_whole() {
        let (_dir, root) = dir();
        assert_eq!(
            mounts(std::slice::from_ref(&root), std::slice::from_ref(&root)),
            [Mount::ReadOnly(root.clone())]
        );
    }

    #[test]
    fn a_missing_path_resolves_through_its_existing_ancestors() {
        let (_dir, root) = dir();
        std::os::unix::fs::symlink(&root, root.join("link")).unwrap();
        assert_eq!(
            resolved(&root.join("link/.config/xcsh")),
            root.join(".config/xcsh")
        );
    }

    #[test]
    fn nested_repositories_are_found_as_directories_and_gitdir_files() {
        let (_dir, root) = dir();
        for dir in [
            ".git/modules/sub",
            "sub/.git/hooks",
            "a/b/vendored/.git",
            "deep/1/2/3/4/5/6",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        std::fs::write(root.join("deep/1/2/3/4/5/6/.git"), "gitdir: /elsewhere\n").unwrap();
        std::fs::create_dir_all(root.join("mod")).unwrap();
        std::fs::write(root.join("mod/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
        let (_other, outside) = dir();
        std::fs::create_dir_all(outside.join("linked/.git")).unwrap();
        std::os::unix::fs::symlink(outside.join("linked"), root.join("link")).unwrap();
        assert_eq!(
            walk_for_repositories(&root, NESTED_DEPTH, NESTED_DIRECTORIES),
            [
                root.join(".git/modules/sub"),
                root.join("a/b/vendored/.git"),
                root.join("mod/.git"),
                root.join("sub/.git"),
            ]
        );
        assert_eq!(
            records_of(&root)[..3],
            [
                root.join(".xcsh"),
                root.join(".git"),
                root.join(".git/modules/sub")
            ]
        );
    }

    #[test]
    fn the_walk_stops_at_its_budget_shallowest_first() {
        let (_dir, root) = dir();
        std::fs::create_dir_all(root.join("a/.git")).unwrap();
        std::fs::create_dir_all(root.join("b/c/.git")).unwrap();
        // The root and `a`, `b` (in either order): `b/c` is not read.
        assert_eq!(
            walk_for_repositories(&root, NESTED_DEPTH, 3),
            [root.join("a/.git")]
        );
        assert_eq!(walk_for_repositories(&root, 2, 100), [root.join("a/.git")]);
    }

    #[test]
    fn a_link_is_followed_to_what_it_names() {
        let (_dir, root) = dir();
        std::fs::create_dir(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        assert_eq!(
            mounts(std::slice::from_ref(&root), &[root.join("link")]),
            [Mount::ReadOnly(root.join("real"))]
        );
    }
}
