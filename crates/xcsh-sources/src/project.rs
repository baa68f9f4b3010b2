//! The working directory's project files (`.xcsh/config.toml`,
//! `.xcsh/plugins`, whatever that config names, and the pack registry
//! `.xcsh/packs.json`) and whether the user trusts them.
//!
//! A cloned repository must not run code on a plain `xcsh tools`: nothing
//! a project directory ships is read as config or opened as a library
//! until the user runs `xcsh trust` in it. The trust is recorded with what
//! was trusted ([`crate::trust_store`]), so a changed config asks again, a
//! changed registry is skipped, a changed pack is refused and a new pack
//! is skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::{CONFIG_FILE_NAME, Config, MAX_CONFIG_BYTES};
use crate::discovery::Discovery;
use crate::registry::{MAX_REGISTRY_BYTES, REGISTRY_FILE_NAME, Registry};
use crate::source::{Expect, Origin, Source};
use crate::trust_store::{ProjectRecord, TrustStore};
use crate::warning::{Problem, SourceWarning, changed_since_trusted, not_trusted};

/// The project directory, relative to the working directory.
pub const PROJECT_DIR: &str = ".xcsh";

/// A working directory's project files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// The working directory, canonical when it can be: the key of its
    /// trust record.
    pub dir: PathBuf,
    /// `.xcsh/config.toml` in it.
    pub config: PathBuf,
    /// `.xcsh/plugins` in it.
    pub plugins: PathBuf,
    /// `.xcsh/packs.json` in it: the project's installed packs.
    pub registry: PathBuf,
}

/// What start-up does with a project.
#[derive(Debug)]
pub enum Verdict {
    /// Neither a project config nor a project plugin directory.
    Absent,
    /// Trusted and its config unchanged: load it.
    Trusted {
        /// The config, parsed from the very bytes whose hash matched
        /// (boxed: a config is large beside the other verdicts).
        config: Option<Box<Config>>,
        /// What was trusted.
        record: ProjectRecord,
    },
    /// Not trusted, or changed since: nothing of it is read or loaded.
    Skipped(SourceWarning),
}

/// What a trusted project's pack registry is to a session.
#[derive(Debug)]
pub enum RegistryVerdict {
    /// No registry, and none when the project was trusted.
    Absent,
    /// Unchanged since trusted: parsed from the very bytes whose hash
    /// matched.
    Trusted(Registry),
    /// Added, changed or removed since the project was trusted.
    Changed,
}

impl Project {
    /// The project files of the working directory `cwd`.
    pub fn at(cwd: &Path) -> Self {
        let dir = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        let base = cwd.join(PROJECT_DIR);
        Self {
            config: base.join(CONFIG_FILE_NAME),
            plugins: base.join("plugins"),
            registry: base.join(REGISTRY_FILE_NAME),
            dir,
        }
    }

    /// Reads the config once: the SHA-256 of its bytes and the bytes as
    /// text; `None` if there is no config.
    ///
    /// # Errors
    ///
    /// `refusing the project's config file that is a named pipe, not a
    /// regular file: {path} (fix: remove it)` and the other refusals of
    /// [`xcsh_loader::OwnFile::read`] but owner and mode;
    /// `cannot read the project's config file {path}: …`.
    pub fn read_config(&self) -> anyhow::Result<Option<(String, Vec<u8>)>> {
        read_hashed(&self.config, "the project's config file", MAX_CONFIG_BYTES)
    }

    /// Reads the pack registry once, as [`read_config`](Self::read_config)
    /// reads the config.
    ///
    /// # Errors
    ///
    /// As [`read_config`](Self::read_config), naming `the project's pack
    /// registry`.
    pub fn read_registry(&self) -> anyhow::Result<Option<(String, Vec<u8>)>> {
        read_hashed(
            &self.registry,
            "the project's pack registry",
            MAX_REGISTRY_BYTES,
        )
    }

    /// The sources this project adds: its config's packs and directories,
    /// then `.xcsh/plugins`.
    pub fn sources(&self, config: Option<&Config>) -> Vec<Source> {
        let origin = Origin::ProjectConfig(self.config.clone());
        let mut sources = Vec::new();
        if let Some(config) = config {
            sources.extend(config.plugins.iter().map(|path| Source {
                path: path.clone(),
                origin: origin.clone(),
                expect: Expect::File,
            }));
            sources.extend(config.plugin_dirs.iter().map(|path| Source {
                path: path.clone(),
                origin: origin.clone(),
                expect: Expect::Dir,
            }));
        }
        sources.push(Source {
            path: self.plugins.clone(),
            origin: Origin::ProjectDir,
            expect: Expect::Dir,
        });
        sources
    }

    /// What the project holds, for the skip line: its config, plugin
    /// directory and pack registry, those that exist.
    fn present(&self) -> Vec<&Path> {
        [&self.config, &self.plugins, &self.registry]
            .into_iter()
            .filter(|path| path.exists())
            .map(PathBuf::as_path)
            .collect()
    }

    /// Whether to load this project, given the user's record.
    ///
    /// # Errors
    ///
    /// The config of a trusted project cannot be read or is invalid.
    pub fn judge(&self, store: &TrustStore) -> anyhow::Result<Verdict> {
        let present = self.present();
        if present.is_empty() {
            return Ok(Verdict::Absent);
        }
        let skipped = |problem| {
            Ok(Verdict::Skipped(SourceWarning {
                path: self.dir.clone(),
                origin: Origin::ProjectDir,
                problem,
            }))
        };
        let what = list(&present);
        let Some(record) = store.get(&self.dir) else {
            return skipped(Problem::NotTrusted(what));
        };
        let config = self.read_config()?;
        if config.as_ref().map(|(hash, _)| hash) != record.config.as_ref() {
            return skipped(Problem::ChangedSinceTrusted {
                skipped: what,
                changed: self.trusted_path(&self.config),
            });
        }
        let config = config
            .map(|(_, bytes)| Config::from_bytes(&self.config, &bytes).map(Box::new))
            .transpose()?;
        Ok(Verdict::Trusted {
            config,
            record: record.clone(),
        })
    }

    /// The record under which the project is in use: trusted, and its
    /// config unchanged since (whether or not it holds any file).
    ///
    /// # Errors
    ///
    /// The one-line reason it is not, with the command that trusts it
    /// (`… is not a trusted project (to trust it: xcsh trust …)`, `…
    /// changed since … was trusted (to trust it again: xcsh trust …)`), or
    /// the config cannot be read.
    pub fn in_use<'a>(&self, store: &'a TrustStore) -> anyhow::Result<&'a ProjectRecord> {
        let record = store
            .get(&self.dir)
            .ok_or_else(|| anyhow::anyhow!(not_trusted(&self.dir)))?;
        let config = self.read_config()?;
        if config.map(|(hash, _)| hash) != record.config {
            anyhow::bail!(changed_since_trusted(
                &self.trusted_path(&self.config),
                &self.dir
            ));
        }
        Ok(record)
    }

    /// The pack registry, judged against `record`, the trust record of
    /// this project.
    ///
    /// # Errors
    ///
    /// The registry cannot be read, or is trusted but invalid (which
    /// `xcsh trust` refuses, so only another xcsh version can cause it).
    pub fn judge_registry(&self, record: &ProjectRecord) -> anyhow::Result<RegistryVerdict> {
        let registry = self.read_registry()?;
        if registry.as_ref().map(|(hash, _)| hash) != record.registry.as_ref() {
            return Ok(RegistryVerdict::Changed);
        }
        Ok(match registry {
            Some((_, bytes)) => RegistryVerdict::Trusted(Registry::parse(&self.registry, &bytes)?),
            None => RegistryVerdict::Absent,
        })
    }

    /// The warning of a registry skipped because it changed since the
    /// project was trusted.
    pub fn registry_changed(&self) -> SourceWarning {
        let registry = self.trusted_path(&self.registry);
        SourceWarning {
            path: self.dir.clone(),
            origin: Origin::ProjectDir,
            problem: Problem::ChangedSinceTrusted {
                skipped: xcsh_text::escape::path(&registry).into_owned(),
                changed: registry,
            },
        }
    }

    /// `path`, one of this project's files, under the canonical project
    /// directory (as trust records and reports name it).
    pub fn trusted_path(&self, path: &Path) -> PathBuf {
        path.file_name().map_or_else(
            || path.to_path_buf(),
            |name| self.dir.join(PROJECT_DIR).join(name),
        )
    }

    /// What `xcsh trust` records: the config's hash, the pack registry's,
    /// and every pack file the project's sources name now, with its hash.
    /// Missing paths are left out (they were not trusted). The registry's
    /// packs are not hashed here: the registry pins each one itself.
    ///
    /// # Errors
    ///
    /// The config or registry cannot be read or is invalid, or a pack
    /// cannot be read.
    pub fn snapshot(&self) -> anyhow::Result<ProjectRecord> {
        let config = self.read_config()?;
        let parsed = config
            .as_ref()
            .map(|(_, bytes)| Config::from_bytes(&self.config, bytes))
            .transpose()?;
        let mut packs = BTreeMap::new();
        for pack in crate::discovery::discover(&self.sources(parsed.as_ref())).packs {
            let canonical = std::fs::canonicalize(&pack).unwrap_or(pack);
            let bytes = std::fs::read(&canonical).map_err(|e| {
                anyhow::anyhow!("cannot read tool pack {}: {e}", canonical.display())
            })?;
            packs.insert(canonical, xcsh_loader::sha256_hex(&bytes));
        }
        let registry = self.read_registry()?;
        if let Some((_, bytes)) = &registry {
            Registry::parse(&self.registry, bytes)?;
        }
        Ok(ProjectRecord {
            config: config.map(|(hash, _)| hash),
            registry: registry.map(|(hash, _)| hash),
            packs,
        })
    }
}

/// Leaves out of `discovery` the packs of the trusted project `dir` that
/// `record` does not list (added since `xcsh trust`), one warning each.
pub fn hold_back_new_packs(discovery: &mut Discovery, dir: &Path, record: &ProjectRecord) {
    let new: Vec<PathBuf> = discovery
        .from_project
        .iter()
        .filter(|pack| {
            let canonical = std::fs::canonicalize(pack).unwrap_or_else(|_| pack.to_path_buf());
            !record.packs.contains_key(&canonical)
        })
        .cloned()
        .collect();
    discovery.packs.retain(|pack| !new.contains(pack));
    for pack in new {
        discovery.warnings.push(SourceWarning {
            path: pack,
            origin: Origin::ProjectDir,
            problem: Problem::NewSinceTrusted(dir.to_path_buf()),
        });
    }
}

/// The SHA-256 of the file at `path` and its bytes, read once; `None` if
/// there is no such file.
/// It is read as xcsh's own files are ([`xcsh_loader::OwnFile`]): only a
/// regular file, at most `limit` bytes; its trust record stands for its
/// owner and mode.
fn read_hashed(path: &Path, what: &str, limit: u64) -> anyhow::Result<Option<(String, Vec<u8>)>> {
    let bytes = xcsh_loader::OwnFile::new(path, what, limit)
        .in_project()
        .read()
        .map_err(anyhow::Error::msg)?;
    Ok(bytes.map(|bytes| (xcsh_loader::sha256_hex(&bytes), bytes)))
}

/// `a`, `a and b`, `a, b and c`.
fn list(paths: &[&Path]) -> String {
    let names: Vec<String> = paths
        .iter()
        .map(|p| xcsh_text::escape::path(p).into_owned())
        .collect();
    xcsh_text::and_list(&names)
}

#[cfg(test)]
mod tests;
