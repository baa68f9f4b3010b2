use std::fs;

use tempfile::TempDir;

use super::*;
use crate::registry::{FileStamp, PackRecord};

/// A project directory and a user data directory.
struct Fixture {
    cwd: TempDir,
    data: TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self {
            cwd: TempDir::new().unwrap(),
            data: TempDir::new().unwrap(),
        }
    }

    fn trust_file(&self) -> PathBuf {
        self.data.path().join(TRUST_FILE_NAME)
    }

    fn file(&self) -> RegistryFile {
        RegistryFile::project(self.cwd.path(), self.trust_file())
    }

    fn project(&self) -> Project {
        Project::at(self.cwd.path())
    }

    /// Records the project as trusted, as `xcsh trust` would.
    fn trust(&self) {
        let project = self.project();
        let mut store = TrustStore::load(&self.trust_file()).unwrap();
        store
            .projects
            .insert(project.dir.clone(), project.snapshot().unwrap());
        store.save(&self.trust_file()).unwrap();
    }

    fn recorded(&self) -> Option<String> {
        let store = TrustStore::load(&self.trust_file()).unwrap();
        store.get(&self.project().dir).unwrap().registry.clone()
    }
}

fn registry_with(name: &str) -> Registry {
    let mut registry = Registry {
        version: REGISTRY_VERSION,
        packs: BTreeMap::new(),
    };
    registry.packs.insert(
        name.to_owned(),
        PackRecord {
            name: name.to_owned(),
            version: "0.1.0".into(),
            abi_version: "1.0.0".into(),
            path: PathBuf::from("/nowhere/libp.so"),
            file: FileStamp {
                size: 1,
                modified: std::time::SystemTime::UNIX_EPOCH,
                inode: 1,
                sha256: "00".into(),
            },
            isolated: false,
            tools: Vec::new(),
            failure: None,
        },
    );
    registry
}

#[test]
fn an_untrusted_projects_registry_is_not_read() {
    let fx = Fixture::new();
    let file = fx.file();
    assert_eq!(file.scope(), Scope::Project);
    let dir = fx.project().dir;
    assert_eq!(
        file.load().unwrap_err().to_string(),
        format!(
            "{d} is not a trusted project (to trust it: xcsh trust {d})",
            d = dir.display()
        )
    );
}

#[test]
fn writing_a_trusted_projects_registry_records_its_new_hash() {
    let fx = Fixture::new();
    fx.trust();
    let file = fx.file();
    assert!(file.load().unwrap().packs.is_empty());
    assert_eq!(fx.recorded(), None);
    file.save(&registry_with("p")).unwrap();
    let written = fs::read(file.path()).unwrap();
    assert_eq!(fx.recorded(), Some(xcsh_loader::sha256_hex(&written)));
    assert_eq!(file.load().unwrap(), registry_with("p"));

    file.mark_failure("p", "gone");
    let marked = file.load().unwrap();
    assert_eq!(marked.packs["p"].failure.as_deref(), Some("gone"));
    assert_eq!(
        fx.recorded(),
        Some(xcsh_loader::sha256_hex(&fs::read(file.path()).unwrap()))
    );
}

#[test]
fn a_registry_changed_behind_xcshs_back_is_neither_read_nor_trusted_again() {
    let fx = Fixture::new();
    fx.trust();
    let file = fx.file();
    file.save(&registry_with("p")).unwrap();
    let trusted = fx.recorded();
    // Someone else's registry, written over it.
    registry_with("q").save(file.path()).unwrap();
    let dir = fx.project().dir;
    assert_eq!(
        file.load().unwrap_err().to_string(),
        format!(
            "{d}/.xcsh/packs.json changed since {d} was trusted (to trust it again: xcsh trust {d})",
            d = dir.display()
        )
    );
    // A failure at first use does not mark (and so trust) it.
    file.mark_failure("q", "gone");
    assert_eq!(fx.recorded(), trusted);
    assert_eq!(
        Registry::load(file.path()).unwrap().packs["q"].failure,
        None
    );
}

#[test]
fn the_users_registry_needs_no_trust() {
    let fx = Fixture::new();
    let registries = Registries::new(fx.cwd.path(), Some(&fx.data.path().to_path_buf())).unwrap();
    assert_eq!(registries.user.scope(), Scope::User);
    assert_eq!(registries.target(false).unwrap(), &registries.user);
    let project = registries.target(true).unwrap();
    assert_eq!(
        project.path(),
        fx.project().dir.join(".xcsh").join(REGISTRY_FILE_NAME)
    );
    registries.user.save(&registry_with("u")).unwrap();
    assert_eq!(registries.user.load().unwrap(), registry_with("u"));
}
