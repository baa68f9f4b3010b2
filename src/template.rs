//! `xcsh pack new NAME [DIR]`: writes a tool-pack crate that builds and
//! passes its tests as written.
//!
//! Until `xcsh-plugin-api` is published, the crate depends on it (and on
//! `xcsh-pack-test`) by path. By default the paths are those of the clone
//! of the xcsh repository this binary was built from (known at build time);
//! `--api-path` names the `xcsh-plugin-api` directory of another clone.
//! The clone's `Cargo.lock` is copied too, so the pack builds with the
//! dependency versions the agent was tested with.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use xcsh_loader::discover::pack_file_name;

use crate::cli::PackNewArgs;

/// The clone of the xcsh repository this binary was built from.
pub const BUILT_FROM: &str = env!("CARGO_MANIFEST_DIR");

/// The files of a new pack: path in the crate, template.
const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("template/Cargo.toml.in")),
    ("README.md", include_str!("template/README.md.in")),
    (".gitignore", include_str!("template/gitignore.in")),
    ("src/lib.rs", include_str!("template/lib.rs.in")),
    ("src/append.rs", include_str!("template/append.rs.in")),
    ("tests/append.rs", include_str!("template/tests.rs.in")),
];

/// What a new pack is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPack {
    /// The crate's (and pack's) name.
    pub name: String,
    /// Its `xcsh-plugin-api` directory.
    pub api: PathBuf,
    /// Its `xcsh-pack-test` directory.
    pub harness: PathBuf,
}

/// Runs `xcsh pack new`, printing what it wrote.
///
/// # Errors
///
/// An invalid name, a directory that is not empty, no API crate where it
/// should be, or a file that cannot be written.
pub fn run(args: &PackNewArgs) -> anyhow::Result<()> {
    check_name(&args.name)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.name));
    let api = match &args.api_path {
        Some(path) => path.clone(),
        None => Path::new(BUILT_FROM).join("crates/xcsh-plugin-api"),
    };
    let pack = NewPack::find(&args.name, &api, args.api_path.is_none())?;
    pack.write(&dir)?;
    println!(
        "Created tool pack {} in {}: test it with `cargo test`, build it with `cargo build --release`, then `xcsh tools --plugin {}`",
        pack.name,
        dir.display(),
        dir.join("target/release")
            .join(pack_file_name(&pack.name))
            .display()
    );
    Ok(())
}

/// Refuses names that are not a crate name Cargo and Rust both accept.
fn check_name(name: &str) -> anyhow::Result<()> {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && name.len() <= 64;
    if !valid {
        bail!(
            "invalid pack name {name:?}: use up to 64 letters, digits, - and _, starting with a letter"
        );
    }
    Ok(())
}

impl NewPack {
    /// The pack `name` over the API crate at `api` (the harness is its
    /// sibling `xcsh-pack-test`). `built_in` says the path is the build-time
    /// default, for the error message.
    ///
    /// # Errors
    ///
    /// Either crate is missing.
    pub fn find(name: &str, api: &Path, built_in: bool) -> anyhow::Result<Self> {
        let api = fs::canonicalize(api)
            .ok()
            .filter(|api| api.join("Cargo.toml").is_file());
        let Some(api) = api else {
            let hint = if built_in {
                format!(
                    "this xcsh was built from {BUILT_FROM}, which no longer has it; pass --api-path"
                )
            } else {
                "--api-path must name the xcsh-plugin-api directory of a clone of the xcsh repository".to_owned()
            };
            bail!("cannot find the xcsh-plugin-api crate ({hint})");
        };
        let harness = api.with_file_name("xcsh-pack-test");
        if !harness.join("Cargo.toml").is_file() {
            bail!(
                "cannot find the xcsh-pack-test crate next to {} (expected {})",
                api.display(),
                harness.display()
            );
        }
        Ok(Self {
            name: name.to_owned(),
            api,
            harness,
        })
    }

    /// The crate name as a Rust identifier.
    pub fn ident(&self) -> String {
        self.name.replace('-', "_")
    }

    /// The name of the pack's one tool.
    pub fn tool(&self) -> String {
        format!("{}_append_preview", self.ident())
    }

    /// `template` with this pack's names and paths filled in.
    pub fn fill(&self, template: &str) -> String {
        let repo = self.repo();
        template
            .replace("{{name}}", &self.name)
            .replace("{{ident}}", &self.ident())
            .replace("{{tool}}", &self.tool())
            .replace("{{api}}", &toml_string(&self.api))
            .replace("{{harness}}", &toml_string(&self.harness))
            .replace("{{repo}}", &repo.display().to_string())
            .replace("{{library}}", &pack_file_name(&self.name))
    }

    /// Writes the crate into `dir`, which must not exist or be empty, and
    /// copies the repository's `Cargo.lock` when there is one.
    ///
    /// # Errors
    ///
    /// `dir` has files in it, or a file cannot be written.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        if fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
            bail!("{} is not empty: choose a new directory", dir.display());
        }
        for (relative, template) in FILES {
            let path = dir.join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            fs::write(&path, self.fill(template))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        let lock = self.repo().join("Cargo.lock");
        if lock.is_file() {
            fs::copy(&lock, dir.join("Cargo.lock"))
                .with_context(|| format!("cannot copy {}", lock.display()))?;
        }
        Ok(())
    }

    /// The clone the API crate belongs to: the directory above `crates/`.
    fn repo(&self) -> &Path {
        let crates = self.api.parent().unwrap_or(&self.api);
        crates.parent().unwrap_or(crates)
    }
}

/// `path` as the inside of a TOML basic string.
fn toml_string(path: &Path) -> String {
    path.display()
        .to_string()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack() -> NewPack {
        NewPack::find(
            "demo-pack",
            &Path::new(BUILT_FROM).join("crates/xcsh-plugin-api"),
            true,
        )
        .unwrap()
    }

    #[test]
    fn names_must_be_crate_names() {
        for bad in ["", "1pack", "my pack", "dot.pack", "ü", &"a".repeat(65)] {
            let error = check_name(bad).unwrap_err().to_string();
            assert_eq!(
                error,
                format!(
                    "invalid pack name {bad:?}: use up to 64 letters, digits, - and _, starting with a letter"
                )
            );
        }
        check_name("my-pack_2").unwrap();
    }

    #[test]
    fn templates_are_filled_completely() {
        let pack = pack();
        assert_eq!(pack.tool(), "demo_pack_append_preview");
        for (relative, template) in FILES {
            let filled = pack.fill(template);
            assert!(!filled.contains("{{"), "{relative}: {filled}");
        }
        let manifest = pack.fill(FILES[0].1);
        assert!(manifest.contains("name = \"demo-pack\""), "{manifest}");
    }

    #[test]
    fn a_missing_api_crate_is_named() {
        let error = NewPack::find("p", Path::new("/nonexistent/xcsh-plugin-api"), false)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "cannot find the xcsh-plugin-api crate (--api-path must name the xcsh-plugin-api directory of a clone of the xcsh repository)"
        );
    }

    #[test]
    fn a_directory_with_files_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("keep.txt"), "mine").unwrap();
        let error = pack().write(dir.path()).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "{} is not empty: choose a new directory",
                dir.path().display()
            )
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("keep.txt")).unwrap(),
            "mine"
        );
    }
}
