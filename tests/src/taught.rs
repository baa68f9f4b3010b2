//! Packs written as each documented release of `xcsh-plugin-api` taught,
//! built against the *current* crate: the source-compatibility promise of
//! its CHANGELOG.md, tested for the code of every release, not only 1.0.0
//! (whose pack is [`compat_source_pack_path`](crate::compat_source_pack_path)).
//!
//! `tests/compat/taught/{release}/src/lib.rs` is that release's crate-docs
//! example pack, as `git show` gives it at the release's last commit (the
//! 1.1 one also matches a text block as the 1.1 docs of xcsh-tool-types
//! did). Code written for 1.1 compiles only with the one-line migrations
//! the changelog gives for it; [`changelog_migrations`] reads them from
//! CHANGELOG.md itself, so the test checks the changelog's words.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use xcsh_loader::discover::pack_file_name;

use crate::build::{cargo_command, profile_dir};

/// The releases with a taught pack.
pub const TAUGHT_RELEASES: &[&str] = &["1.1", "1.2", "1.3"];

/// The workspace root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
}

/// The package name of the pack taught by `release` (`taught-pack-1-1`).
pub fn taught_pack_name(release: &str) -> String {
    format!("taught-pack-{}", release.replace('.', "-"))
}

/// The source of the pack `release` taught, as written then.
pub fn taught_source(release: &str) -> String {
    let path = root().join(format!("tests/compat/taught/{release}/src/lib.rs"));
    fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The one-line migrations xcsh-plugin-api's CHANGELOG.md gives for code
/// written for `release` (`x.y`): the `` - `OLD` → `NEW` `` items after its
/// line "Code written for {release}.0 needs these one-line migrations:".
pub fn changelog_migrations(release: &str) -> Vec<(String, String)> {
    let changelog = fs::read_to_string(root().join("crates/xcsh-plugin-api/CHANGELOG.md")).unwrap();
    let intro = format!("Code written for {release}.0 needs");
    let mut lines = changelog
        .lines()
        .skip_while(|line| !line.starts_with(&intro));
    lines.next();
    lines
        .skip_while(|line| line.trim().is_empty())
        .take_while(|line| line.starts_with("- `"))
        .map(|line| {
            let (from, to) = line
                .trim_start_matches("- ")
                .split_once(" → ")
                .unwrap_or_else(|| panic!("not `OLD` → `NEW`: {line}"));
            (
                from.trim_matches('`').to_owned(),
                to.trim_matches('`').to_owned(),
            )
        })
        .collect()
}

/// `source` with each migration applied: `A(..)?` → `B(..)?` replaces the
/// call `A(` by `B(`; anything else is replaced as written. Panics if a
/// migration changes nothing (the source no longer needs it, or the
/// changelog's wording drifted from the code it migrates).
pub fn migrate(source: &str, migrations: &[(String, String)]) -> String {
    let mut migrated = source.to_owned();
    for (from, to) in migrations {
        let (from, to) = match (from.split_once("(..)"), to.split_once("(..)")) {
            (Some((from, _)), Some((to, _))) => (format!("{from}("), format!("{to}(")),
            _ => (from.clone(), to.clone()),
        };
        assert!(
            migrated.contains(&from),
            "the migration {from} → {to} changes nothing in the taught source"
        );
        migrated = migrated.replace(&from, &to);
    }
    migrated
}

/// Writes `source` as the pack `release` taught, depending on the current
/// xcsh-plugin-api, and runs `cargo {subcommand}` on it (into the test
/// run's target directory, so dependencies build once). Returns cargo's
/// output and the library a build makes.
pub fn build_taught(release: &str, source: &str, subcommand: &str) -> (Output, PathBuf) {
    let name = taught_pack_name(release);
    let profile = profile_dir();
    let dir = profile.join(&name);
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("src/lib.rs"), source).unwrap();
    let api = root().join("crates/xcsh-plugin-api");
    fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = {name:?}\nversion = \"1.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [lib]\ncrate-type = [\"cdylib\"]\n\n\
             [dependencies]\nxcsh-plugin-api = {{ path = {:?} }}\n\n[workspace]\n",
            api.display().to_string()
        ),
    )
    .unwrap();
    fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let output = cargo_command(&profile, &dir, subcommand)
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    (output, profile.join(pack_file_name(&name)))
}
