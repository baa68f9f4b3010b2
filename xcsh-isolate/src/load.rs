//! Loading a session's packs, each in-process or isolated as the policy
//! says, in the order given: conflicts and the report read as if every
//! pack loaded the same way.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::Duration;

use xcsh_core::{PackOptions, PendingActionStore, RegistryError, Session};
use xcsh_isolate_protocol::{OpenPack, SandboxRequest, SandboxStatus};
use xcsh_loader::{
    FirstSeen, HostBinding, LoadError, LoadFailure, LoadReport, LoadedPack, PackLoader, SealedPack,
    ToolConflict, TrustPolicy,
};

use super::pack::IsolatedPack;
use super::policy::{Capability, IsolationPolicy, PackSettings, RequireSandbox};
use super::process::StartSpec;
use super::tool::IsolatedTool;

/// An isolated pack as `xcsh tools` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IsolatedInfo {
    /// The library's canonical path (as in the load report).
    pub path: PathBuf,
    /// The pack's name.
    pub name: String,
    /// The sandbox its process runs in.
    pub sandbox: SandboxStatus,
    /// What that sandbox lets it do, in a phrase; `None`: unconfined.
    pub may_do: Option<String>,
}

/// What loading did: the report, and which packs run isolated.
#[derive(Debug, Default)]
pub struct Loaded {
    /// Loaded, failed and conflicting, in load order.
    pub report: LoadReport,
    /// The packs that run in their own process.
    pub isolated: Vec<IsolatedInfo>,
}

/// How a session loads its packs.
#[derive(Debug)]
pub struct SessionLoader<'a> {
    /// Which pack files may be opened.
    pub trust: &'a TrustPolicy,
    /// Which packs run isolated.
    pub isolation: &'a IsolationPolicy,
    /// The limit of each pack call, apply and reject.
    pub timeout: Option<Duration>,
    /// The check of in-process libraries not seen before.
    pub first_seen: Option<&'a FirstSeen>,
}

impl SessionLoader<'_> {
    /// Loads `packs` into `session` in order. Consecutive in-process packs
    /// load together through the loader; isolated ones start their
    /// processes in parallel.
    pub fn load(&self, session: &Session, packs: &[PathBuf]) -> Loaded {
        let binding = HostBinding::for_session(session);
        let mut loaded = Loaded::default();
        let mut rest = packs;
        while let Some(first) = rest.first() {
            let isolated = self.isolation.settings_for(first).is_some();
            let run = rest
                .iter()
                .take_while(|path| self.isolation.settings_for(path).is_some() == isolated)
                .count();
            let (group, after) = rest.split_at(run);
            if isolated {
                self.load_isolated(session, group, &mut loaded);
            } else {
                let mut loader = PackLoader::new().with_trust(self.trust.clone());
                if let Some(first_seen) = self.first_seen {
                    loader = loader.with_first_seen(first_seen.clone());
                }
                let report = loader.load(session, &binding, group);
                loaded.report.extend(report);
            }
            rest = after;
        }
        loaded
    }

    fn load_isolated(&self, session: &Session, group: &[PathBuf], loaded: &mut Loaded) {
        let started: Vec<_> = std::thread::scope(|scope| {
            let starting: Vec<_> = group
                .iter()
                .map(|path| {
                    scope.spawn(move || {
                        let options = session.pack_options();
                        self.start(
                            session.cwd(),
                            Arc::downgrade(session.store()),
                            path,
                            &options,
                        )
                    })
                })
                .collect();
            starting
                .into_iter()
                .map(|thread| {
                    thread
                        .join()
                        .unwrap_or_else(|_| Err(LoadError::Isolated("its start panicked".into())))
                })
                .collect()
        });
        for (path, started) in group.iter().zip(started) {
            match started.and_then(|(pack, tools)| register(session, pack, tools, loaded)) {
                Ok(pack) => loaded.report.loaded.push(pack),
                Err(error) => {
                    let failure = LoadFailure {
                        path: path.clone(),
                        error,
                    };
                    tracing::warn!("{failure}");
                    loaded.report.failures.push(failure);
                }
            }
        }
    }

    /// Opens the pack at `path` once and checks a sealed copy against the
    /// trust policy, then starts its process (working in `cwd`, pushing
    /// into `store`), which maps that copy; so does every restart.
    ///
    /// # Errors
    ///
    /// The trust check's error, or why the process could not open it.
    pub fn start(
        &self,
        cwd: &Path,
        store: Weak<PendingActionStore>,
        path: &Path,
        options: &PackOptions,
    ) -> Result<(Arc<IsolatedPack>, Vec<xcsh_isolate_protocol::ToolSpec>), LoadError> {
        let pack = Arc::new(SealedPack::open(path, self.trust)?);
        let settings = self
            .isolation
            .settings_for(path)
            .unwrap_or_else(|| PackSettings {
                capabilities: Vec::new(),
                memory_limit: None,
                require_sandbox: self.isolation.require_sandbox,
                env: Vec::new(),
            });
        let cwd = cwd.to_path_buf();
        let spec = StartSpec {
            exe: self.isolation.host_exe.clone(),
            verbosity: self.isolation.verbosity,
            open: OpenPack {
                path: pack.path().to_path_buf(),
                cwd: cwd.clone(),
                sandbox: SandboxRequest {
                    writable: vec![cwd, std::env::temp_dir()],
                    write_anywhere: settings.capabilities.contains(&Capability::WriteAnywhere),
                    network: settings.capabilities.contains(&Capability::Network),
                    processes: settings.capabilities.contains(&Capability::Processes),
                    required: settings.require_sandbox != RequireSandbox::No,
                },
                memory_limit: settings.memory_limit,
                allow_outside_root: options.allow_outside_root,
                configs_json: serde_json::to_string(&options.configs)
                    .unwrap_or_else(|_| "{}".to_owned()),
            },
            // Opening is part of the first call's work: the same limit.
            open_limit: self.timeout,
            frame_limit: self.isolation.frame_limit(),
            protected: self.isolation.protected.clone(),
            env: Some(settings.env),
            require_namespaces: settings.require_sandbox == RequireSandbox::Full,
            without_namespaces: self.isolation.without_namespaces,
            pack,
        };
        IsolatedPack::start(spec, store, self.timeout).map_err(LoadError::Isolated)
    }
}

/// Registers an isolated pack's tools, noting conflicts.
fn register(
    session: &Session,
    pack: Arc<IsolatedPack>,
    tools: Vec<xcsh_isolate_protocol::ToolSpec>,
    loaded: &mut Loaded,
) -> Result<LoadedPack, LoadError> {
    let mut registered = Vec::new();
    for (index, spec) in tools.into_iter().enumerate() {
        let invalid = |reason: String| LoadError::InvalidTool {
            index: index + 1,
            reason,
        };
        let tool = IsolatedTool::new(spec, Arc::clone(&pack)).map_err(invalid)?;
        let name = xcsh_core::Tool::name(&tool).to_owned();
        match session.register_tool(Arc::new(tool)) {
            Ok(()) => registered.push(name),
            Err(RegistryError::Conflict { name }) => {
                let conflict = ToolConflict {
                    path: pack.path().to_path_buf(),
                    name,
                };
                tracing::warn!(path = %pack.path().display(), "{conflict}");
                loaded.report.conflicts.push(conflict);
            }
            Err(other) => return Err(invalid(other.to_string())),
        }
    }
    tracing::info!(pack = pack.name(), tools = ?registered, sandbox = ?pack.sandbox(), "loaded isolated tool pack");
    loaded.isolated.push(IsolatedInfo {
        path: pack.path().to_path_buf(),
        name: pack.name().to_owned(),
        sandbox: pack.sandbox().clone(),
        may_do: pack.may_do(),
    });
    Ok(LoadedPack {
        path: pack.path().to_path_buf(),
        name: pack.name().to_owned(),
        version: pack.version().to_owned(),
        tools: registered,
        built: pack.built(),
    })
}
