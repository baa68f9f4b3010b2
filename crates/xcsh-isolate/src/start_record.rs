//! What an isolated pack offered the last time its process started, kept
//! so that the next session started the same way can offer its tools at
//! once and start the process only at the first call of one of them
//! ([`deferred`](super::deferred)).
//!
//! A record is a small JSON file in a cache directory private to this
//! user ([`PrivateCache`]), named `isolated-<SHA-256>` where the hash is
//! of everything the pack's start depends on: the library file's identity
//! (device, inode, size, modification and change times), the request its
//! process gets (path, working directory, sandbox, memory limit, options,
//! configuration), the granted environment variables with their values,
//! the protected paths, the namespace settings, the engine that sets
//! them up (or why none), and the identity of the `xcsh` executable that serves it. Any change to one of them is another
//! name, so a stale record is never found: the pack starts at start-up
//! again and its record is written anew.
//!
//! A pack that must get a sandbox (`require_sandbox`) is never offered
//! from a record: a refusal to run it must come at start-up, and whether
//! namespaces can be set up here is only learnt by starting one.
//!
//! A record is only an offer. At the first call the pack is opened with
//! every check of a start-up (trust, sealed copy) and it must be the very
//! file recorded (its SHA-256) offering the very tools recorded; if not,
//! its tools refuse to run and say why.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use xcsh_isolate_protocol::{OpenPack, PROTOCOL_VERSION, SandboxStatus, ToolSpec};
use xcsh_loader::{PrivateCache, identity_key, sha256_hex};

use super::protected::Protected;

/// The largest record read (tool descriptors with their schemas).
const MAX_RECORD_BYTES: u64 = 4 * 1024 * 1024;

/// What an isolated pack's process reported when it last started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartRecord {
    /// The SHA-256 of the library it mapped.
    pub sha256: String,
    /// The pack's name.
    pub name: String,
    /// The pack's version.
    pub version: String,
    /// The sandbox its process got.
    pub sandbox: SandboxStatus,
    /// The tools it offered, in its order.
    pub tools: Vec<ToolSpec>,
}

/// What a pack's start depends on, beside its library file.
#[derive(Debug)]
pub struct StartInputs<'a> {
    /// The request its process gets.
    pub open: &'a OpenPack,
    /// The environment variables granted to it.
    pub env: &'a [String],
    /// `require_sandbox = "full"`.
    pub require_namespaces: bool,
    /// What every pack of the session shares ([`SharedInputs::digest`]).
    pub shared: &'a str,
}

/// What the starts of every isolated pack of a session depend on.
#[derive(Debug)]
pub struct SharedInputs<'a> {
    /// What their sandbox keeps read-only (every pack file among them).
    pub protected: &'a Protected,
    /// `namespaces = false`.
    pub without_namespaces: bool,
    /// The `xcsh` executable serving them (`None`: this one).
    pub exe: Option<&'a Path>,
    /// The engine that would set their namespaces up (a bubblewrap's path
    /// and identity, where one is named for a benchmark), or why there is
    /// none.
    pub engine: String,
}

impl SharedInputs<'_> {
    /// A digest of it all, with this build's protocol and crate versions
    /// and the executable's identity: computed once per start-up, as the
    /// protected paths grow with the number of packs.
    pub fn digest(&self) -> String {
        let exe = self
            .exe
            .map(Path::to_path_buf)
            .or_else(|| std::env::current_exe().ok());
        let exe_identity = exe.as_deref().and_then(identity_of);
        let material = format!(
            "{PROTOCOL_VERSION}\n{}\n{:?}\n{}\n{exe:?}\n{exe_identity:?}\n{}",
            env!("CARGO_PKG_VERSION"),
            self.protected,
            self.without_namespaces,
            self.engine,
        );
        sha256_hex(material.as_bytes())
    }
}

/// The start records in one cache directory.
#[derive(Debug)]
pub struct StartRecords {
    dir: PathBuf,
    /// The directory, once checked (`None`: not usable).
    cache: OnceLock<Option<PrivateCache>>,
}

impl StartRecords {
    /// The records kept in `dir` (created mode 0700 on first use; not
    /// used unless it is this user's own and writable by nobody else).
    pub fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            cache: OnceLock::new(),
        }
    }

    /// The cache directory, checked once.
    fn cache(&self) -> Option<&PrivateCache> {
        self.cache
            .get_or_init(|| PrivateCache::usable(&self.dir, "isolated start"))
            .as_ref()
    }

    /// The record of the library at `library` started with `inputs`, if
    /// one was kept and reads back.
    pub fn find(&self, library: &Path, inputs: &StartInputs<'_>) -> Option<StartRecord> {
        let name = entry_name(library, inputs)?;
        let cache = self.cache()?;
        let text = cache.read(&name, MAX_RECORD_BYTES)?;
        match serde_json::from_str(&text) {
            Ok(record) => Some(record),
            Err(error) => {
                tracing::debug!(entry = %name, %error, "unreadable start record ignored");
                None
            }
        }
    }

    /// Keeps `record` for the library whose identity (from [`identity_of`])
    /// was `identity` before it was opened (so a file changed while being
    /// opened has another identity by now, and the record is never found),
    /// started with `inputs`.
    pub fn keep(&self, identity: &str, inputs: &StartInputs<'_>, record: &StartRecord) {
        let Some(cache) = self.cache() else {
            return;
        };
        match serde_json::to_string(record) {
            Ok(text) => cache.write(&name_from(identity, inputs), &text),
            Err(error) => tracing::debug!(%error, "start record not written"),
        }
    }
}

/// The identity of the file at `path` now (see the module documentation).
pub fn identity_of(path: &Path) -> Option<String> {
    identity_key(&std::fs::metadata(path).ok()?)
}

fn entry_name(library: &Path, inputs: &StartInputs<'_>) -> Option<String> {
    Some(name_from(&identity_of(library)?, inputs))
}

fn name_from(identity: &str, inputs: &StartInputs<'_>) -> String {
    let env: Vec<(&str, Option<String>)> = inputs
        .env
        .iter()
        .map(|name| (name.as_str(), std::env::var(name).ok()))
        .collect();
    let material = format!(
        "{}\n{identity}\n{:?}\n{env:?}\n{}",
        inputs.shared, inputs.open, inputs.require_namespaces,
    );
    format!("isolated-{}", sha256_hex(material.as_bytes()))
}

#[cfg(test)]
mod tests {
    use xcsh_isolate_protocol::{Hints, SandboxRequest};

    use super::*;

    fn open(cwd: &str) -> OpenPack {
        OpenPack {
            path: "/lib/libpack.so".into(),
            cwd: cwd.into(),
            sandbox: SandboxRequest::default(),
            memory_limit: None,
            allow_outside_root: false,
            configs_json: "{}".into(),
        }
    }

    fn record() -> StartRecord {
        StartRecord {
            sha256: "ab".repeat(32),
            name: "pack".into(),
            version: "1.0.0".into(),
            sandbox: SandboxStatus::Unconfined {
                reason: "test".into(),
                seccomp: true,
            },
            tools: vec![ToolSpec {
                name: "t".into(),
                label: "T".into(),
                description: "does t".into(),
                parameters_json: "{\"type\":\"object\"}".into(),
                hints: Hints::default(),
            }],
        }
    }

    #[test]
    fn a_kept_record_is_found_for_the_same_start_only() {
        let home = tempfile::tempdir().unwrap();
        let library = home.path().join("libpack.so");
        std::fs::write(&library, b"library").unwrap();
        let records = StartRecords::new(home.path().join("records"));
        let protected = Protected::default();
        let shared = SharedInputs {
            protected: &protected,
            without_namespaces: false,
            exe: None,
            engine: "built in".into(),
        }
        .digest();
        let first = open("/work/a");
        let inputs = |open| StartInputs {
            open,
            env: &[],
            require_namespaces: false,
            shared: &shared,
        };
        assert_eq!(records.find(&library, &inputs(&first)), None);
        records.keep(&identity_of(&library).unwrap(), &inputs(&first), &record());
        assert_eq!(records.find(&library, &inputs(&first)), Some(record()));
        let elsewhere = open("/work/b");
        assert_eq!(
            records.find(&library, &inputs(&elsewhere)),
            None,
            "another working directory is another start"
        );
        std::fs::write(&library, b"rebuilt").unwrap();
        assert_eq!(
            records.find(&library, &inputs(&first)),
            None,
            "a rewritten library has another identity"
        );
    }
}
