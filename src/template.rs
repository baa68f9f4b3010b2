//! `xcsh pack new NAME [DIR] [--sdk PATH|VERSION]`: writes a tool-pack
//! crate that builds and passes its tests as written.
//!
//! The crate depends on `xcsh-plugin-api` (and on `xcsh-pack-test` for its
//! tests) either by path, written relative to the new crate so it keeps
//! working wherever the two directories are cloned side by side, or by a
//! version requirement, for the crates on a registry. Never by the
//! absolute path of a checkout.
//!
//! - `--sdk PATH`: a clone of the xcsh repository (or its
//!   `crates/xcsh-plugin-api`); its `Cargo.lock` is copied too, so the pack
//!   builds with the dependency versions the agent was tested with.
//! - `--sdk VERSION` (`1.4`, `=1.4.0`, `^1`): that requirement.
//! - neither: the clone this binary was built from, when it still has the
//!   crates; otherwise the version this binary was built with.

use std::fs;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context as _, bail};
use xcsh_loader::discover::pack_file_name;

use crate::cli::PackNewArgs;

/// The clone of the xcsh repository this binary was built from.
pub const BUILT_FROM: &str = env!("CARGO_MANIFEST_DIR");

/// The manifests of the two crates a pack depends on, as this binary was
/// built: their versions are the default requirement.
const API_MANIFEST: &str = include_str!("../crates/xcsh-plugin-api/Cargo.toml");
const HARNESS_MANIFEST: &str = include_str!("../crates/xcsh-pack-test/Cargo.toml");

/// The files of a new pack: path in the crate, template.
const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("template/Cargo.toml.in")),
    ("README.md", include_str!("template/README.md.in")),
    (".gitignore", include_str!("template/gitignore.in")),
    ("src/lib.rs", include_str!("template/lib.rs.in")),
    ("src/append.rs", include_str!("template/append.rs.in")),
    ("tests/append.rs", include_str!("template/tests.rs.in")),
];

/// Where a new pack's SDK comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sdk {
    /// A clone of the xcsh repository: its `xcsh-plugin-api` directory
    /// (canonical; `xcsh-pack-test` is its sibling).
    Path(PathBuf),
    /// A version requirement of `xcsh-plugin-api`, e.g. `1.4`.
    Version(String),
}

/// What a new pack is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPack {
    /// The crate's (and pack's) name.
    pub name: String,
    /// Where its SDK comes from.
    pub sdk: Sdk,
}

/// Runs `xcsh pack new`, printing what it wrote.
///
/// # Errors
///
/// An invalid name, a directory that is not empty, no API crate where
/// `--sdk` says, or a file that cannot be written.
pub fn run(args: &PackNewArgs) -> anyhow::Result<()> {
    check_name(&args.name)?;
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&args.name));
    let sdk = match args
        .sdk
        .as_deref()
        .or(args.api_path.as_deref().and_then(Path::to_str))
    {
        Some(given) => Sdk::parse(given)?,
        None => Sdk::default_for_this_build(),
    };
    let pack = NewPack {
        name: args.name.clone(),
        sdk,
    };
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

/// The `version = "…"` of a crate manifest's `[package]`.
fn manifest_version(manifest: &str) -> &str {
    manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("the manifest names its version")
}

/// `major.minor` of `version`: the requirement that accepts it and every
/// later compatible release.
fn series(version: &str) -> &str {
    version
        .rsplit_once('.')
        .map_or(version, |(series, _)| series)
}

impl Sdk {
    /// `--sdk`'s value: a version requirement when it starts like one (a
    /// digit or one of `^ ~ = < > *`), else a path.
    ///
    /// # Errors
    ///
    /// A path with no `xcsh-plugin-api` crate where it should be.
    pub fn parse(given: &str) -> anyhow::Result<Self> {
        let looks_like_version = given
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || "^~=<>*".contains(c))
            && !Path::new(given).exists();
        if looks_like_version {
            return Ok(Self::Version(given.to_owned()));
        }
        Self::find(Path::new(given)).with_context(|| {
            format!(
                "cannot find the xcsh-plugin-api crate in {given}: --sdk takes a clone of the \
                 xcsh repository (or its crates/xcsh-plugin-api) or a version such as {}",
                series(manifest_version(API_MANIFEST))
            )
        })
    }

    /// The clone this binary was built from when it still has the crates,
    /// else the version this binary was built with.
    pub fn default_for_this_build() -> Self {
        Self::find(Path::new(BUILT_FROM))
            .unwrap_or_else(|_| Self::Version(series(manifest_version(API_MANIFEST)).to_owned()))
    }

    /// The SDK of the clone at `dir` (the repository, or its
    /// `crates/xcsh-plugin-api`).
    fn find(dir: &Path) -> anyhow::Result<Self> {
        let candidates = [dir.join("crates/xcsh-plugin-api"), dir.to_path_buf()];
        let api = candidates
            .iter()
            .filter_map(|api| fs::canonicalize(api).ok())
            .find(|api| {
                api.join("Cargo.toml").is_file()
                    && api
                        .file_name()
                        .is_some_and(|name| name == "xcsh-plugin-api")
            })
            .context("no xcsh-plugin-api crate")?;
        let harness = api.with_file_name("xcsh-pack-test");
        if !harness.join("Cargo.toml").is_file() {
            bail!("no xcsh-pack-test beside {}", api.display());
        }
        Ok(Self::Path(api))
    }
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
    /// The crate name as a Rust identifier.
    pub fn ident(&self) -> String {
        self.name.replace('-', "_")
    }

    /// The name of the pack's one tool.
    pub fn tool(&self) -> String {
        format!("{}_append_preview", self.ident())
    }

    /// `template` with this pack's names and dependencies filled in, for a
    /// crate written to the canonical directory `dir`.
    pub fn fill(&self, template: &str, dir: &Path) -> String {
        let (api, harness, note, source) = match &self.sdk {
            Sdk::Path(api) => {
                let api_rel = relative(dir, api);
                let harness_rel = relative(dir, &api.with_file_name("xcsh-pack-test"));
                let repo_rel = relative(dir, api.parent().and_then(Path::parent).unwrap_or(api));
                (
                    format!("{{ path = \"{}\" }}", toml_string(&api_rel)),
                    format!("{{ path = \"{}\" }}", toml_string(&harness_rel)),
                    "By path, relative to this crate: a clone of the xcsh repository at the \
                     revision of the agent that loads the pack."
                        .to_owned(),
                    format!(
                        "by path, from the clone of the xcsh repository at `{}` (relative to this \
                         crate, so the two directories can be cloned anywhere side by side).\n\
                         Build the pack at the same revision of that clone as the agent that will\n\
                         load it. `xcsh pack new --sdk PATH|VERSION` chooses another clone or a\n\
                         published version.",
                        repo_rel.display()
                    ),
                )
            }
            Sdk::Version(requirement) => {
                let harness_version = series(manifest_version(HARNESS_MANIFEST));
                (
                    format!("\"{requirement}\""),
                    format!("\"{harness_version}\""),
                    "From the registry: the agent that loads the pack must load its ABI \
                     (see the guide's \"ABI versions\")."
                        .to_owned(),
                    format!(
                        "from the registry, `xcsh-plugin-api = \"{requirement}\"` (and\n\
                         `xcsh-pack-test = \"{harness_version}\"`). The agent that loads the pack must\n\
                         load the ABI that version declares. `xcsh pack new --sdk PATH` depends on\n\
                         a clone of the xcsh repository instead."
                    ),
                )
            }
        };
        template
            .replace("{{name}}", &self.name)
            .replace("{{ident}}", &self.ident())
            .replace("{{tool}}", &self.tool())
            .replace("{{api}}", &api)
            .replace("{{harness}}", &harness)
            .replace("{{sdk_note}}", &note)
            .replace("{{sdk_source}}", &source)
            .replace("{{library}}", &pack_file_name(&self.name))
    }

    /// Writes the crate into `dir`, which must not exist or be empty, and,
    /// for an SDK by path, copies the clone's `Cargo.lock`.
    ///
    /// # Errors
    ///
    /// `dir` has files in it, or a file cannot be written.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        if fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
            bail!("{} is not empty: choose a new directory", dir.display());
        }
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let canonical =
            fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
        for (relative, template) in FILES {
            let path = dir.join(relative);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            fs::write(&path, self.fill(template, &canonical))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if let Sdk::Path(api) = &self.sdk
            && let Some(lock) = api
                .ancestors()
                .map(|dir| dir.join("Cargo.lock"))
                .find(|lock| lock.is_file())
        {
            fs::copy(&lock, dir.join("Cargo.lock"))
                .with_context(|| format!("cannot copy {}", lock.display()))?;
        }
        Ok(())
    }
}

/// `to` relative to the directory `from` (both canonical), e.g.
/// `../xcsh/crates/xcsh-plugin-api`.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component<'_>> = from.components().collect();
    let to: Vec<Component<'_>> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path: PathBuf = from[common..]
        .iter()
        .map(|_| Component::ParentDir)
        .collect();
    path.extend(&to[common..]);
    if path.as_os_str().is_empty() {
        path.push(".");
    }
    path
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

    fn pack(sdk: Sdk) -> NewPack {
        NewPack {
            name: "demo-pack".to_owned(),
            sdk,
        }
    }

    fn this_clone() -> Sdk {
        Sdk::parse(BUILT_FROM).unwrap()
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
        let dir = Path::new("/somewhere/packs/demo-pack");
        for sdk in [this_clone(), Sdk::Version("1.4".to_owned())] {
            let pack = pack(sdk);
            assert_eq!(pack.tool(), "demo_pack_append_preview");
            for (relative, template) in FILES {
                let filled = pack.fill(template, dir);
                assert!(!filled.contains("{{"), "{relative}: {filled}");
            }
            let manifest = pack.fill(FILES[0].1, dir);
            assert!(manifest.contains("name = \"demo-pack\""), "{manifest}");
        }
    }

    #[test]
    fn a_clone_is_named_relative_to_the_new_crate_never_absolutely() {
        let clone = Path::new("/work/src/xcsh/crates/xcsh-plugin-api");
        let manifest =
            pack(Sdk::Path(clone.to_owned())).fill(FILES[0].1, Path::new("/work/packs/demo-pack"));
        assert!(
            manifest.contains(
                "xcsh-plugin-api = { path = \"../../src/xcsh/crates/xcsh-plugin-api\" }\n"
            ),
            "{manifest}"
        );
        assert!(
            manifest
                .contains("xcsh-pack-test = { path = \"../../src/xcsh/crates/xcsh-pack-test\" }\n"),
            "{manifest}"
        );
        assert!(!manifest.contains("/work/"), "{manifest}");
        let readme =
            pack(Sdk::Path(clone.to_owned())).fill(FILES[1].1, Path::new("/work/packs/demo-pack"));
        assert!(readme.contains("`../../src/xcsh`"), "{readme}");
        assert!(!readme.contains("/work/"), "{readme}");
    }

    #[test]
    fn a_version_is_written_as_the_requirement() {
        let manifest = pack(Sdk::parse("1.4").unwrap()).fill(FILES[0].1, Path::new("/p"));
        assert!(
            manifest.contains("xcsh-plugin-api = \"1.4\"\n"),
            "{manifest}"
        );
        let harness = series(manifest_version(HARNESS_MANIFEST));
        assert!(
            manifest.contains(&format!("xcsh-pack-test = \"{harness}\"\n")),
            "{manifest}"
        );
        assert_eq!(
            Sdk::parse("=1.4.0").unwrap(),
            Sdk::Version("=1.4.0".to_owned())
        );
    }

    #[test]
    fn relative_paths_climb_to_the_common_directory() {
        assert_eq!(
            relative(Path::new("/a/b/c"), Path::new("/a/x/y")),
            Path::new("../../x/y")
        );
        assert_eq!(relative(Path::new("/a"), Path::new("/a/b")), Path::new("b"));
        assert_eq!(
            relative(Path::new("/a/b"), Path::new("/a/b")),
            Path::new(".")
        );
    }

    #[test]
    fn a_missing_api_crate_is_named() {
        let error = Sdk::parse("/nonexistent/xcsh").unwrap_err();
        assert_eq!(
            format!("{error:#}"),
            format!(
                "cannot find the xcsh-plugin-api crate in /nonexistent/xcsh: --sdk takes a clone \
                 of the xcsh repository (or its crates/xcsh-plugin-api) or a version such as {}: \
                 no xcsh-plugin-api crate",
                series(manifest_version(API_MANIFEST))
            )
        );
    }

    #[test]
    fn a_directory_with_files_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("keep.txt"), "mine").unwrap();
        let error = pack(this_clone())
            .write(dir.path())
            .unwrap_err()
            .to_string();
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
