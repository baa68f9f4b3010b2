//! Loading a list of packs into a session.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use xcsh_core::{RegistryError, Session};

use crate::library::{Mapped, Opening};
use crate::pack_file::PackFile;
use crate::report::{LoadFailure, LoadReport, LoadedPack, ToolConflict};
use crate::{FirstSeen, HostBinding, LoadError, PackLibrary, PackTool, TrustPolicy};

/// Loads every pack in `paths` into `session`, bound to its store. Register
/// built-ins first: they win name conflicts, then the first pack loaded.
pub fn load_packs(session: &Session, paths: &[PathBuf]) -> LoadReport {
    load_packs_with(session, &HostBinding::for_session(session), paths)
}

/// Like [`load_packs`] with an explicit binding (e.g.
/// [`HostBinding::without_store`]) and the default [`TrustPolicy`].
pub fn load_packs_with(session: &Session, binding: &HostBinding, paths: &[PathBuf]) -> LoadReport {
    PackLoader::new().load(session, binding, paths)
}

/// Loads packs under a [`TrustPolicy`].
#[derive(Clone, Debug, Default)]
pub struct PackLoader {
    trust: TrustPolicy,
    first_seen: Option<FirstSeen>,
}

impl PackLoader {
    /// A loader with the default trust policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `trust` to decide which files may be opened.
    pub fn with_trust(mut self, trust: TrustPolicy) -> Self {
        self.trust = trust;
        self
    }

    /// Opens each library not seen before in a child process first (see
    /// [`FirstSeen`]), after the trust checks and before mapping it here.
    pub fn with_first_seen(mut self, first_seen: FirstSeen) -> Self {
        self.first_seen = Some(first_seen);
        self
    }

    /// Loads every pack in `paths` into `session` with tools bound to
    /// `binding`. Paths naming the same file load once. A failing pack is
    /// reported and the rest load.
    ///
    /// Packs are opened, checked and their factories called in parallel, on
    /// up to [`std::thread::available_parallelism`] threads (the caller's
    /// among them); their tools are then registered one pack at a time in
    /// the order of `paths`, so conflicts and the report come out as if
    /// loaded one by one.
    pub fn load(&self, session: &Session, binding: &HostBinding, paths: &[PathBuf]) -> LoadReport {
        load_all(self, session, binding, paths)
    }
}

fn load_all(
    loader: &PackLoader,
    session: &Session,
    binding: &HostBinding,
    paths: &[PathBuf],
) -> LoadReport {
    let mut seen = HashSet::new();
    let unique: Vec<&PathBuf> = paths
        .iter()
        .filter(|path| seen.insert(std::fs::canonicalize(path).unwrap_or_else(|_| (*path).clone())))
        .collect();
    // Each pack's checks, layout check and factory are independent of the
    // others' and run in parallel. `dlopen` runs one library at a time
    // between them: glibc serialises it anyway, and while another thread
    // of the process runs, every page-table change it makes while
    // relocating costs a TLB shootdown on the other CPUs. Registration then
    // goes in path order, so the same pack wins a name conflict and the
    // report reads the same as loading one by one.
    let checked = parallel_map(&unique, |path| check_one(loader, path));
    let mapped: Vec<_> = checked
        .into_iter()
        .map(|checked| checked.and_then(Opening::map))
        .collect();
    let opened = parallel_map(&mapped, |mapped| match mapped {
        Ok(opening) => open_one(opening, binding),
        Err(error) => Err(error.clone()),
    });
    let mut report = LoadReport::default();
    for (path, opened) in unique.into_iter().zip(opened) {
        match opened
            .and_then(|(library, tools)| register(session, path, library, tools, &mut report))
        {
            Ok(pack) => report.loaded.push(pack),
            Err(error) => {
                let failure = LoadFailure {
                    path: path.clone(),
                    error,
                };
                tracing::warn!("{failure}");
                report.failures.push(failure);
            }
        }
    }
    report
}

/// `work` applied to every item, on up to `available_parallelism()`
/// threads; results in item order. A panic in `work` is resumed here.
fn parallel_map<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    // Helpers log where the caller does: its subscriber, inside its span.
    let dispatch = tracing::dispatcher::get_default(tracing::Dispatch::clone);
    let span = tracing::Span::current();
    let worker = || {
        tracing::dispatcher::with_default(&dispatch, || {
            span.in_scope(|| {
                let mut done = Vec::new();
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else {
                        return done;
                    };
                    done.push((index, work(item)));
                }
            })
        })
    };
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        // The calling thread works too; a thread that fails to start is
        // simply not there to help.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|i| {
                std::thread::Builder::new()
                    .name(format!("xcsh-load-{i}"))
                    .spawn_scoped(scope, worker)
                    .ok()
            })
            .collect();
        let mut finished = vec![worker()];
        for helper in helpers {
            match helper.join() {
                Ok(done) => finished.push(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        for (index, result) in finished.into_iter().flatten() {
            slots[index] = Some(result);
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.expect("every item is taken by one worker"))
        .collect()
}

/// The checks before a pack is mapped, all on the one open file (its
/// sealed copy) that is then mapped: the trust policy (owner, mode, hashes), the first-seen
/// check (unless this process opened it already) and its object headers.
fn check_one(loader: &PackLoader, path: &Path) -> Result<Opening, LoadError> {
    let file = PackFile::open(path)?.sealed()?;
    loader.trust.check_file(&file)?;
    if let Some(first_seen) = &loader.first_seen
        && !PackLibrary::is_opened(file.path())
    {
        first_seen.check(&file)?;
    }
    PackLibrary::preflight(file)
}

/// After mapping: the layout check, the root module and the factory.
pub(crate) fn open_one(
    opening: &Mapped,
    binding: &HostBinding,
) -> Result<(&'static PackLibrary, Vec<PackTool>), LoadError> {
    let library = opening.check()?;
    let tools = library.create_tools(binding)?;
    Ok((library, tools))
}

/// Registers an opened pack's tools in `session`, noting conflicts.
pub(crate) fn register(
    session: &Session,
    path: &Path,
    library: &PackLibrary,
    tools: Vec<PackTool>,
    report: &mut LoadReport,
) -> Result<LoadedPack, LoadError> {
    let mut registered = Vec::new();
    for (index, tool) in tools.into_iter().enumerate() {
        let name = xcsh_core::Tool::name(&tool).to_owned();
        match session.register_tool(Arc::new(tool)) {
            Ok(()) => registered.push(name),
            Err(RegistryError::Conflict { name }) => {
                let conflict = ToolConflict {
                    path: path.to_path_buf(),
                    name,
                };
                tracing::warn!(path = %path.display(), "{conflict}");
                report.conflicts.push(conflict);
            }
            Err(other) => {
                return Err(LoadError::InvalidTool {
                    index: index + 1,
                    reason: crate::error::one_line(other),
                });
            }
        }
    }
    tracing::info!(pack = library.name(), tools = ?registered, "loaded tool pack");
    Ok(LoadedPack {
        path: library.path().to_path_buf(),
        name: library.name().to_owned(),
        version: library.version().to_owned(),
        tools: registered,
        built: library.built(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_map_keeps_item_order() {
        let items: Vec<usize> = (0..257).collect();
        let doubled = parallel_map(&items, |&i| {
            if i % 7 == 0 {
                std::thread::yield_now();
            }
            i * 2
        });
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(parallel_map(&[] as &[usize], |&i| i).is_empty());
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let items: Vec<usize> = (0..64).collect();
        let caught = std::panic::catch_unwind(|| {
            parallel_map(&items, |&i| {
                assert_ne!(i, 40, "item forty");
                i
            })
        })
        .unwrap_err();
        let message = caught.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(message.contains("item forty"), "{message}");
    }
}
