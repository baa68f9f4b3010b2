//! Loading a session's packs, each in-process or isolated as the policy
//! says, in the order given: conflicts and the report read as if every
//! pack loaded the same way.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::Duration;

use xcsh_core::{PackOptions, PendingActionStore, RegistryError, Session, Tool};
use xcsh_isolate_protocol::{OpenPack, SandboxRequest, SandboxStatus, ToolSpec, error_line};
use xcsh_loader::{
    FirstSeen, HostBinding, LoadError, LoadFailure, LoadReport, LoadedPack, PackLoader, SealedPack,
    ToolConflict, TrustPolicy,
};

use super::deferred::{DeferredPack, DeferredTool, Recorded, Starter};
use super::namespaces::Engine;
use super::pack::IsolatedPack;
use super::policy::{Capability, IsolationPolicy, PackSettings, RequireSandbox};
use super::start_record::{SharedInputs, StartInputs, StartRecord, StartRecords, identity_of};
use super::start_spec::StartSpec;
use super::tool::{IsolatedTool, ToolSpecError};

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
    /// Offered from its start record: its process starts at the first
    /// call of one of its tools, and `sandbox` is what its last start got.
    pub deferred: bool,
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

    /// Loads a run of isolated packs: those with a start record are
    /// offered from it (after the trust check a start makes) and start at
    /// their first call; the others start now, in parallel, and their
    /// start is recorded.
    fn load_isolated(&self, session: &Session, group: &[PathBuf], loaded: &mut Loaded) {
        let records = self.isolation.start_records.clone().map(StartRecords::new);
        let options = session.pack_options();
        let starter = self.starter(session, &options);
        let shared = records.as_ref().map(|_| self.shared_inputs().digest());
        let offers: Vec<Option<Result<Offer, LoadError>>> = group
            .iter()
            .map(|path| {
                let (records, shared) = (records.as_ref()?, shared.as_deref()?);
                self.recorded(session.cwd(), path, &options, records, shared)
                    .map(|offer| offer.map(Offer::Deferred))
            })
            .collect();
        let started: Vec<Result<Offer, LoadError>> = std::thread::scope(|scope| {
            let starting: Vec<_> = group
                .iter()
                .zip(offers)
                .map(|(path, offer)| match offer {
                    Some(offer) => Done(offer),
                    None => Starting(scope.spawn(|| {
                        // The identity before the file is opened: if it
                        // changes while being opened, the record names an
                        // identity it no longer has.
                        let identity = records.as_ref().and(identity_of(path));
                        self.start(
                            session.cwd(),
                            Arc::downgrade(session.store()),
                            path,
                            &options,
                        )
                        .map(|(pack, tools)| Offer::Started(pack, tools, identity))
                    })),
                })
                .collect();
            starting
                .into_iter()
                .map(|offer| match offer {
                    Done(offer) => offer,
                    Starting(thread) => thread
                        .join()
                        .unwrap_or_else(|_| Err(LoadError::Isolated("its start panicked".into()))),
                })
                .collect()
        });
        if let Some(records) = &records {
            self.keep_records(session.cwd(), &options, records, &started);
        }
        for (path, offer) in group.iter().zip(started) {
            let registered = offer.and_then(|offer| match offer {
                Offer::Started(pack, tools, _) => register(session, pack, tools, loaded),
                Offer::Deferred(recorded) => {
                    let pack = Arc::new(DeferredPack::new(recorded, Arc::clone(&starter)));
                    register_deferred(session, &pack, loaded)
                }
            });
            match registered {
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

    /// How a deferred pack of `session` starts at its first call: as a
    /// start-up does, with what this one has (owned: it outlives it).
    fn starter(&self, session: &Session, options: &Arc<PackOptions>) -> Starter {
        let (trust, isolation, timeout) =
            (self.trust.clone(), self.isolation.clone(), self.timeout);
        let (cwd, store) = (session.cwd().to_path_buf(), Arc::downgrade(session.store()));
        let options = Arc::clone(options);
        Arc::new(move |path: &Path| {
            let loader = SessionLoader {
                trust: &trust,
                isolation: &isolation,
                timeout,
                first_seen: None,
            };
            loader.start(&cwd, store.clone(), path, &options)
        })
    }

    /// The start record of the pack at `path`, if there is one for a start
    /// from `cwd` with `options`: `None` when it must start now. The trust
    /// check a start makes is made here too, so a pack the policy refuses
    /// is refused at start-up whether or not it has a record.
    fn recorded(
        &self,
        cwd: &Path,
        path: &Path,
        options: &PackOptions,
        records: &StartRecords,
        shared: &str,
    ) -> Option<Result<Recorded, LoadError>> {
        let canonical = std::fs::canonicalize(path).ok()?;
        let (open, settings) = self.request(cwd, &canonical, options);
        if settings.require_sandbox != RequireSandbox::No {
            return None;
        }
        let record = records.find(&canonical, &inputs(&open, &settings, shared))?;
        Some(self.trust.check(&canonical).map(|()| {
            Recorded {
                may_do: super::sandbox_status::may_do(&open.sandbox, &record.sandbox),
                built: std::fs::metadata(&canonical)
                    .and_then(|m| m.modified())
                    .ok(),
                path: canonical,
                record,
            }
        }))
    }

    /// Keeps a start record of each pack of `started` that started (and
    /// may be offered from one: it requires no sandbox), after every start
    /// of the run: namespaces may have turned out unusable meanwhile.
    fn keep_records(
        &self,
        cwd: &Path,
        options: &PackOptions,
        records: &StartRecords,
        started: &[Result<Offer, LoadError>],
    ) {
        let shared = self.shared_inputs().digest();
        for offer in started {
            let Ok(Offer::Started(pack, tools, Some(identity))) = offer else {
                continue;
            };
            let (open, settings) = self.request(cwd, pack.path(), options);
            if settings.require_sandbox != RequireSandbox::No {
                continue;
            }
            match pack.sha256() {
                Ok(sha256) => {
                    let record = StartRecord {
                        sha256,
                        name: pack.name().to_owned(),
                        version: pack.version().to_owned(),
                        sandbox: pack.sandbox().clone(),
                        tools: tools.clone(),
                    };
                    records.keep(identity, &inputs(&open, &settings, &shared), &record);
                }
                Err(error) => tracing::debug!(%error, "start record not kept"),
            }
        }
    }

    /// What the starts of every isolated pack of this load depend on.
    fn shared_inputs(&self) -> SharedInputs<'_> {
        SharedInputs {
            protected: &self.isolation.protected,
            without_namespaces: self.isolation.without_namespaces,
            exe: self.isolation.host_exe.as_deref(),
            engine: if self.isolation.without_namespaces {
                "namespaces = false".to_owned()
            } else {
                match super::namespaces::available() {
                    Ok(Engine::BuiltIn) => "built in".to_owned(),
                    Ok(Engine::Bubblewrap(bwrap)) => {
                        format!("{} {:?}", bwrap.display(), identity_of(&bwrap))
                    }
                    Err(why) => why.to_string(),
                }
            },
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
    ) -> Result<(Arc<IsolatedPack>, Vec<ToolSpec>), LoadError> {
        let pack = Arc::new(SealedPack::open(path, self.trust)?);
        let (open, settings) = self.request(cwd, pack.path(), options);
        let spec = StartSpec {
            exe: self.isolation.host_exe.clone(),
            verbosity: self.isolation.verbosity,
            open,
            // Opening is part of the first call's work: the same limit.
            open_limit: self.timeout,
            frame_limit: self.isolation.frame_limit(),
            protected: self.isolation.protected.clone(),
            require_namespaces: settings.require_sandbox == RequireSandbox::Full,
            env: Some(settings.env),
            without_namespaces: self.isolation.without_namespaces,
            pack,
        };
        IsolatedPack::start(spec, store, self.timeout)
            .map_err(|error| LoadError::Isolated(error_line(&error)))
    }

    /// What the process of the pack at `library` (canonical) is asked to
    /// open, working in `cwd`, and the pack's settings.
    fn request(
        &self,
        cwd: &Path,
        library: &Path,
        options: &PackOptions,
    ) -> (OpenPack, PackSettings) {
        let settings = self
            .isolation
            .settings_for(library)
            .unwrap_or_else(|| PackSettings {
                capabilities: Vec::new(),
                memory_limit: None,
                require_sandbox: self.isolation.require_sandbox,
                env: Vec::new(),
            });
        let cwd = cwd.to_path_buf();
        let open = OpenPack {
            path: library.to_path_buf(),
            cwd: cwd.clone(),
            sandbox: SandboxRequest {
                writable: vec![cwd, std::env::temp_dir()],
                write_anywhere: settings.capabilities.contains(&Capability::WriteAnywhere),
                network: settings.capabilities.contains(&Capability::Network),
                processes: settings.capabilities.contains(&Capability::Processes),
                required: settings.require_sandbox != RequireSandbox::No,
                // Set when the process starts (see `handover`).
                in_namespaces: false,
                hidden: self.isolation.protected.hidden.clone(),
            },
            memory_limit: settings.memory_limit,
            allow_outside_root: options.allow_outside_root,
            configs_json: serde_json::to_string(&options.configs)
                .unwrap_or_else(|_| "{}".to_owned()),
        };
        (open, settings)
    }
}

/// What a start of the pack `open` asks for with `settings` depends on,
/// beside the file and `shared`.
fn inputs<'b>(open: &'b OpenPack, settings: &'b PackSettings, shared: &'b str) -> StartInputs<'b> {
    StartInputs {
        open,
        env: &settings.env,
        require_namespaces: settings.require_sandbox == RequireSandbox::Full,
        shared,
    }
}

/// How an isolated pack is offered to the session.
enum Offer {
    /// Its process started: the pack, the tools it offered, and the
    /// library's identity before it was opened (when records are kept).
    Started(Arc<IsolatedPack>, Vec<ToolSpec>, Option<String>),
    /// From its start record: it starts at its first call.
    Deferred(Recorded),
}

/// A pack's offer, made or being made on a thread of its own.
enum Pending<'scope, T> {
    Done(T),
    Starting(std::thread::ScopedJoinHandle<'scope, T>),
}

use Pending::{Done, Starting};

/// Registers an isolated pack's tools, noting conflicts.
fn register(
    session: &Session,
    pack: Arc<IsolatedPack>,
    tools: Vec<ToolSpec>,
    loaded: &mut Loaded,
) -> Result<LoadedPack, LoadError> {
    let tools = tools.into_iter().map(|spec| {
        IsolatedTool::new(spec, Arc::clone(&pack)).map(|tool| Arc::new(tool) as Arc<dyn Tool>)
    });
    let registered = register_tools(session, pack.path(), tools, false, loaded)?;
    tracing::info!(pack = pack.name(), tools = ?registered, sandbox = ?pack.sandbox(), "loaded isolated tool pack");
    loaded.isolated.push(IsolatedInfo {
        path: pack.path().to_path_buf(),
        name: pack.name().to_owned(),
        sandbox: pack.sandbox().clone(),
        may_do: pack.may_do(),
        deferred: false,
    });
    Ok(LoadedPack {
        path: pack.path().to_path_buf(),
        name: pack.name().to_owned(),
        version: pack.version().to_owned(),
        tools: registered,
        built: pack.built(),
    })
}

/// Registers a deferred pack's recorded tools, noting conflicts. Their
/// schemas compiled when the record was kept; a record's schema is
/// compiled again at the tool's first call, as an installed pack's is.
fn register_deferred(
    session: &Session,
    pack: &Arc<DeferredPack>,
    loaded: &mut Loaded,
) -> Result<LoadedPack, LoadError> {
    let record = pack.record();
    let tools = record.tools.iter().map(|spec| {
        DeferredTool::new(spec, Arc::clone(pack)).map(|tool| Arc::new(tool) as Arc<dyn Tool>)
    });
    let registered = register_tools(session, pack.path(), tools, true, loaded)?;
    tracing::info!(pack = record.name, tools = ?registered, "offered isolated tool pack from its start record; it starts at first call");
    loaded.isolated.push(IsolatedInfo {
        path: pack.path().to_path_buf(),
        name: record.name.clone(),
        sandbox: record.sandbox.clone(),
        may_do: pack.may_do(),
        deferred: true,
    });
    Ok(LoadedPack {
        path: pack.path().to_path_buf(),
        name: record.name.clone(),
        version: record.version.clone(),
        tools: registered,
        built: pack.built(),
    })
}

/// Registers the tools of the pack at `path` in order (`schema_checked`:
/// their schemas are compiled at first call), noting conflicts; the names
/// registered.
fn register_tools(
    session: &Session,
    path: &Path,
    tools: impl Iterator<Item = Result<Arc<dyn Tool>, ToolSpecError>>,
    schema_checked: bool,
    loaded: &mut Loaded,
) -> Result<Vec<String>, LoadError> {
    let mut registered = Vec::new();
    for (index, tool) in tools.enumerate() {
        let invalid = |reason: String| LoadError::InvalidTool {
            index: index + 1,
            reason,
        };
        let tool = tool.map_err(|error| invalid(error_line(&error)))?;
        let name = tool.name().to_owned();
        let outcome = if schema_checked {
            session.register_schema_checked_tool(tool)
        } else {
            session.register_tool(tool)
        };
        match outcome {
            Ok(()) => registered.push(name),
            Err(RegistryError::Conflict { name }) => {
                let conflict = ToolConflict {
                    path: path.to_path_buf(),
                    name,
                };
                tracing::warn!(path = %path.display(), "{conflict}");
                loaded.report.conflicts.push(conflict);
            }
            Err(other) => return Err(invalid(other.to_string())),
        }
    }
    Ok(registered)
}
