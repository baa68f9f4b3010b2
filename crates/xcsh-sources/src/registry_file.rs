//! The registry files: the user's (`packs.json` in the user's data
//! directory) and the working directory's project's (`.xcsh/packs.json`).
//!
//! A project's registry names libraries to open, so it is read only while
//! its directory is trusted and the file is the one `xcsh trust` hashed.
//! When xcsh writes it itself (`xcsh pack add --project`, `remove
//! --project`, a failure at first use, `verify` clearing one) it records
//! the new file's hash in the trust record in the same step, so the user's
//! own commands never un-trust the project.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use crate::project::{Project, RegistryVerdict};
use crate::registry::{REGISTRY_FILE_NAME, REGISTRY_VERSION, Registry};
use crate::trust_store::{TRUST_FILE_NAME, TrustStore};
use crate::warning::{changed_since_trusted, not_trusted};

/// Which registry a pack is installed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's, in the user's data directory.
    User,
    /// The working directory's project's, `.xcsh/packs.json`.
    Project,
}

impl Scope {
    /// `user` or `project`, as `--json` output names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
        }
    }
}

/// One registry file, and how to read and write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryFile {
    path: PathBuf,
    /// For a project's registry: the project and the user's trust record.
    trust: Option<ProjectTrust>,
}

/// Where a project registry's trust is recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ProjectTrust {
    /// The project, at its canonical directory.
    project: Project,
    /// The user's `trusted-projects.json`.
    trust_file: PathBuf,
}

impl RegistryFile {
    /// The user's registry at `path`.
    pub fn user(path: PathBuf) -> Self {
        Self { path, trust: None }
    }

    /// The registry of the project directory `dir`, trusted (or not) in
    /// the user's trust record `trust_file`.
    pub fn project(dir: &Path, trust_file: PathBuf) -> Self {
        let project = Project::at(dir);
        // Named under the canonical directory, as trust records are.
        let path = project
            .dir
            .join(crate::project::PROJECT_DIR)
            .join(REGISTRY_FILE_NAME);
        Self {
            path,
            trust: Some(ProjectTrust {
                project,
                trust_file,
            }),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whose registry it is.
    pub fn scope(&self) -> Scope {
        if self.trust.is_some() {
            Scope::Project
        } else {
            Scope::User
        }
    }

    /// The registry as it is now; empty if there is no file. A project's
    /// only while the project is in use (trusted, its config unchanged)
    /// and the registry unchanged since it was trusted.
    ///
    /// # Errors
    ///
    /// The file cannot be read or is invalid; for a project's, the
    /// one-line reason it is not used (`… is not a trusted project (to
    /// trust it: xcsh trust …)`, `… changed since … was trusted (to trust
    /// it again: xcsh trust …)`).
    pub fn load(&self) -> anyhow::Result<Registry> {
        let Some(trust) = &self.trust else {
            return Registry::load(&self.path);
        };
        let store = TrustStore::load(&trust.trust_file)?;
        let record = trust.project.in_use(&store)?;
        match trust.project.judge_registry(record)? {
            RegistryVerdict::Absent => Ok(Registry {
                version: REGISTRY_VERSION,
                packs: BTreeMap::new(),
            }),
            RegistryVerdict::Trusted(registry) => Ok(registry),
            RegistryVerdict::Changed => {
                anyhow::bail!(changed_since_trusted(&self.path, &trust.project.dir))
            }
        }
    }

    /// Writes `registry` (a new file renamed over the old one, readable by
    /// the user only); for a project's, then records the SHA-256 of the
    /// bytes written in the project's trust record.
    ///
    /// # Errors
    ///
    /// `cannot write pack registry {path}: …`; for a project's, the trust
    /// record cannot be read or written, or no longer trusts the project.
    pub fn save(&self, registry: &Registry) -> anyhow::Result<()> {
        let Some(trust) = &self.trust else {
            return registry.save(&self.path);
        };
        let text = crate::private_file::json_text(registry)?;
        crate::private_file::write_bytes(&self.path, text.as_bytes())
            .with_context(|| format!("cannot write pack registry {}", self.path.display()))?;
        let _one_writer = crate::file_lock::lock(&trust.trust_file)
            .with_context(|| format!("cannot lock trust file {}", trust.trust_file.display()))?;
        let mut store = TrustStore::load(&trust.trust_file)?;
        let dir = &trust.project.dir;
        let Some(record) = store.projects.get_mut(dir) else {
            anyhow::bail!(not_trusted(dir));
        };
        record.registry = Some(xcsh_loader::sha256_hex(text.as_bytes()));
        store.save(&trust.trust_file)?;
        tracing::debug!(registry = %self.path.display(), "recorded the project registry's new hash");
        Ok(())
    }

    /// Waits for, then holds, the one writer's lock of this registry
    /// (see [`file_lock`](crate::file_lock)): take it before reading a
    /// registry that is then changed and saved.
    ///
    /// # Errors
    ///
    /// `cannot lock pack registry {path}: …`.
    pub fn lock(&self) -> anyhow::Result<crate::file_lock::FileLock> {
        crate::file_lock::lock(&self.path)
            .with_context(|| format!("cannot lock pack registry {}", self.path.display()))
    }

    /// Records `failure` as the reason pack `name` failed to open at first
    /// use (best effort: a session goes on if the registry cannot be
    /// written, or is no longer the one trusted, with a warning).
    pub fn mark_failure(&self, name: &str, failure: &str) {
        let marked = self.lock().and_then(|_one_writer| {
            let mut registry = self.load()?;
            if let Some(pack) = registry.packs.get_mut(name) {
                pack.failure = Some(failure.to_owned());
                self.save(&registry)?;
            }
            Ok(())
        });
        if let Err(error) = marked {
            tracing::warn!("cannot mark pack {name} as failed: {error:#}");
        }
    }
}

/// The registries `xcsh pack` works on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registries {
    /// The user's.
    pub user: RegistryFile,
    /// The working directory's project's; `None` when the working
    /// directory's `.xcsh` is the user's own data directory.
    pub project: Option<RegistryFile>,
}

impl Registries {
    /// The user's registry in the user's xcsh data directory `data`, and
    /// the registry of the project in `cwd`.
    ///
    /// # Errors
    ///
    /// The OS gives no data directory.
    pub fn new(cwd: &Path, data: Option<&PathBuf>) -> anyhow::Result<Self> {
        let data = data.context("no user data directory to keep the pack registry in")?;
        let user = RegistryFile::user(data.join(REGISTRY_FILE_NAME));
        let project = RegistryFile::project(cwd, data.join(TRUST_FILE_NAME));
        let same = |a: &Path, b: &Path| {
            std::fs::canonicalize(a).is_ok_and(|a| std::fs::canonicalize(b).is_ok_and(|b| a == b))
        };
        let project = (!same(project.path(), user.path())).then_some(project);
        Ok(Self { user, project })
    }

    /// The registry `--project` says to write: the project's, or else the
    /// user's.
    ///
    /// # Errors
    ///
    /// `--project` where the working directory's `.xcsh` is the user's own
    /// data directory.
    pub fn target(&self, project: bool) -> anyhow::Result<&RegistryFile> {
        if !project {
            return Ok(&self.user);
        }
        self.project.as_ref().with_context(|| {
            format!(
                "{} is your own pack registry, not a project's (leave out --project)",
                self.user.path().display()
            )
        })
    }
}

/// A registry a session offers: its file, and its packs as read (a
/// project's from the very bytes whose hash its trust record holds).
#[derive(Clone, Debug)]
pub struct UsedRegistry {
    /// The file (written when a pack fails at first use).
    pub file: Arc<RegistryFile>,
    /// Its packs.
    pub registry: Registry,
}

impl UsedRegistry {
    /// The user's registry at `path`, read.
    ///
    /// # Errors
    ///
    /// See [`Registry::load`].
    pub fn user(path: PathBuf) -> anyhow::Result<Self> {
        let registry = Registry::load(&path)?;
        Ok(Self {
            file: Arc::new(RegistryFile::user(path)),
            registry,
        })
    }
}

#[cfg(test)]
mod tests;
