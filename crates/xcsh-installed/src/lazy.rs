//! Installed packs in a session: offered from their recorded descriptors,
//! opened (or their process started) at the first call of one of their
//! tools, once per session, after checking that the file is the one
//! `xcsh pack add` pinned.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use serde_json::Value;
use xcsh_core::{PendingActionStore, Tool, ToolContext, ToolError, ToolHints, ToolOutput};
use xcsh_loader::{HostBinding, PackLibrary, TrustPolicy};

use xcsh_isolate::{IsolatedTool, IsolationPolicy, SessionLoader};
use xcsh_isolate_protocol::error_line;
use xcsh_sources::registry::{FileState, PackRecord, ToolRecord};
use xcsh_sources::registry_file::{RegistryFile, Scope};

use crate::compare::{difference, record_of};

/// What opening a pack at first use gave: its tools by name, or why it
/// could not be opened (kept: the session does not try again).
type Opened = Result<HashMap<String, Arc<dyn Tool>>, String>;

/// What opening any installed pack of one session needs: made once per
/// session and shared by its packs.
#[derive(Debug)]
pub struct OpenContext {
    /// Which packs run in a process of their own, and how.
    pub isolation: IsolationPolicy,
    /// The session's time limit (an isolated pack's open is bounded by it).
    pub timeout: Option<Duration>,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The session's store, which pushes go into.
    pub store: Weak<PendingActionStore>,
    /// The binding in-process packs push through.
    pub binding: HostBinding,
}

/// One installed pack of one session.
pub struct LazyPack {
    record: PackRecord,
    registry: Arc<RegistryFile>,
    isolated: bool,
    context: Arc<OpenContext>,
    opened: Mutex<Option<Opened>>,
}

impl LazyPack {
    /// The pack `record` (from the registry `registry`), opened at first
    /// use as `context` says; `isolated` when it runs in its own process.
    pub fn new(
        record: PackRecord,
        registry: Arc<RegistryFile>,
        isolated: bool,
        context: Arc<OpenContext>,
    ) -> Self {
        Self {
            record,
            registry,
            isolated,
            context,
            opened: Mutex::new(None),
        }
    }

    /// What `xcsh pack add` recorded.
    pub fn record(&self) -> &PackRecord {
        &self.record
    }

    /// Which registry it is installed in.
    pub fn scope(&self) -> Scope {
        self.registry.scope()
    }

    /// True when it runs in a process of its own.
    pub fn is_isolated(&self) -> bool {
        self.isolated
    }

    /// True once the session opened it (or tried to).
    pub fn is_opened(&self) -> bool {
        xcsh_core::sync::lock(&self.opened).is_some()
    }

    /// The session tool for `tool`, opening the pack on first use.
    fn tool(&self, tool: &str) -> Result<Arc<dyn Tool>, ToolError> {
        let mut opened = xcsh_core::sync::lock(&self.opened);
        let opened = opened.get_or_insert_with(|| {
            let result = self.open();
            if let Err(failure) = &result {
                tracing::warn!(
                    "Failed to open installed tool pack {} ({}): {failure}",
                    self.record.name,
                    self.record.path.display()
                );
                self.registry.mark_failure(&self.record.name, failure);
            }
            result
        });
        let name = &self.record.name;
        match opened {
            Ok(tools) => tools.get(tool).cloned().ok_or_else(|| {
                ToolError::new(format!(
                    "Tool {tool} is unavailable: pack {name} no longer offers it; run: xcsh pack add {}",
                    xcsh_text::shell_word(&self.record.path)
                ))
            }),
            Err(failure) => Err(ToolError::new(format!(
                "Tool {tool} is unavailable: installed pack {name} failed to open: {failure}"
            ))),
        }
    }

    /// Checks the file (size, time and inode first, then the SHA-256 of
    /// the very file opened), opens it in this process or its own, and
    /// checks that it offers the tools recorded, descriptors included: the
    /// model was shown those.
    fn open(&self) -> Opened {
        let record = &self.record;
        let again = format!("run: xcsh pack add {}", xcsh_text::shell_word(&record.path));
        match record.file.compare(&record.path) {
            FileState::Unchanged => {}
            FileState::Missing => {
                return Err(format!("{} is missing; {again}", record.path.display()));
            }
            FileState::Changed(what) => {
                return Err(format!(
                    "{} changed since it was added ({what}); to use it, {again}",
                    record.path.display()
                ));
            }
        }
        let trust = TrustPolicy::new().with_installed_pin(&record.path, &record.file.sha256);
        tracing::info!(pack = %record.name, isolated = self.isolated, "opening installed tool pack at first use");
        let tools: Vec<Arc<dyn Tool>> = if self.isolated {
            let loader = SessionLoader {
                trust: &trust,
                isolation: &self.context.isolation,
                timeout: self.context.timeout,
                first_seen: None,
            };
            let (pack, specs) = loader
                .start(
                    &self.context.cwd,
                    self.context.store.clone(),
                    &record.path,
                    self.context.binding.settings(),
                )
                .map_err(|e| e.to_string())?;
            specs
                .into_iter()
                .map(|spec| {
                    IsolatedTool::new(spec, Arc::clone(&pack))
                        .map(|t| Arc::new(t) as Arc<dyn Tool>)
                        .map_err(|error| error_line(&error))
                })
                .collect::<Result<_, _>>()?
        } else {
            let library =
                PackLibrary::open_trusted(&record.path, &trust).map_err(|e| e.to_string())?;
            library
                .create_tools(&self.context.binding)
                .map_err(|e| e.to_string())?
                .into_iter()
                .map(|tool| Arc::new(tool) as Arc<dyn Tool>)
                .collect()
        };
        let offered: Vec<ToolRecord> = tools.iter().map(|tool| record_of(tool.as_ref())).collect();
        if let Some(difference) = difference(&record.tools, &offered) {
            return Err(format!(
                "it now offers other tools than when it was added: {difference}; to use it, {again}"
            ));
        }
        Ok(tools
            .into_iter()
            .map(|tool| (tool.name().to_owned(), tool))
            .collect())
    }
}

/// One pack of one session is equal only to itself.
impl PartialEq for LazyPack {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for LazyPack {}

impl fmt::Debug for LazyPack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyPack")
            .field("name", &self.record.name)
            .field("path", &self.record.path)
            .field("isolated", &self.isolated)
            .field("opened", &self.is_opened())
            .finish_non_exhaustive()
    }
}

/// A tool of an installed pack: its recorded descriptor until called.
pub struct LazyTool {
    pack: Arc<LazyPack>,
    index: usize,
}

impl LazyTool {
    /// The tool recorded at `index` in `pack`'s record.
    ///
    /// # Panics
    ///
    /// If the record has no tool at `index`.
    pub fn new(pack: Arc<LazyPack>, index: usize) -> Self {
        assert!(index < pack.record.tools.len(), "no recorded tool {index}");
        Self { pack, index }
    }

    fn record(&self) -> &ToolRecord {
        &self.pack.record.tools[self.index]
    }
}

impl Tool for LazyTool {
    fn name(&self) -> &str {
        &self.record().name
    }

    fn label(&self) -> &str {
        &self.record().label
    }

    fn description(&self) -> &str {
        &self.record().description
    }

    fn parameters(&self) -> &Value {
        self.record().parameters.value()
    }

    fn hints(&self) -> ToolHints {
        self.record().hints
    }

    /// An isolated pack's tools stop at the limit themselves (they kill
    /// their process); in-process ones run under the session's timer.
    fn enforces_time_limit(&self) -> bool {
        self.pack.isolated
    }

    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.pack.tool(self.name())?.execute(arguments, context)
    }
}

impl fmt::Debug for LazyTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LazyTool")
            .field("name", &self.record().name)
            .field("pack", &self.pack.record.name)
            .finish_non_exhaustive()
    }
}
