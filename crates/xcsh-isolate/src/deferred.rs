//! An isolated pack offered from its start record: its tools are in the
//! session at once, and its process starts at the first call of one of
//! them, once per session, with every check a start-up makes. It must
//! then be the file recorded, offering the tools recorded (descriptors
//! included: the model was shown those); otherwise its tools refuse to
//! run and say why, and the session does not try again.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde_json::Value;
use xcsh_core::{Tool, ToolContext, ToolError, ToolHints, ToolOutput};
use xcsh_isolate_protocol::{ToolSpec, error_line};
use xcsh_loader::LoadError;

use super::pack::IsolatedPack;
use super::start_record::StartRecord;
use super::tool::{Descriptor, IsolatedTool, ToolSpecError};

/// What a deferred pack's tools answer once its start at first use
/// failed (`… failed to start: {line}`, the line as
/// [`error_line`] writes it).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeferredStartError {
    /// Opening, checking or starting it failed as it would at start-up
    /// (the loader's or the start's one-line cause).
    #[error(transparent)]
    Start(#[from] LoadError),
    /// Its library is not the one this session was shown the tools of.
    #[error(
        "{} changed after this session was shown its tools (SHA-256 {sha256}, then {recorded}); {RESTART}",
        path.display()
    )]
    Changed {
        /// The library's path.
        path: PathBuf,
        /// Its SHA-256 now.
        sha256: String,
        /// Its SHA-256 in the start record.
        recorded: String,
    },
    /// It offers other tools than this session was shown.
    #[error("it does not offer the tools this session was shown ({difference}); {RESTART}")]
    OtherTools {
        /// The first difference, in a phrase.
        difference: String,
    },
    /// One of its tools cannot be offered.
    #[error(transparent)]
    Tool(#[from] ToolSpecError),
}

/// What to do when a deferred pack is not what it was.
const RESTART: &str = "restart xcsh to offer its tools anew";

/// What a started pack gave: its tools by name, or why it did not start.
type Started = Result<HashMap<String, Arc<IsolatedTool>>, DeferredStartError>;

/// Starts the pack at a path as a start-up would (trust check, sealed
/// copy, its process): the pack and the tools it offered, or why not.
pub(crate) type Starter =
    Arc<dyn Fn(&Path) -> Result<(Arc<IsolatedPack>, Vec<ToolSpec>), LoadError> + Send + Sync>;

/// A pack found in the start records, as start-up offers it.
#[derive(Debug)]
pub(crate) struct Recorded {
    /// The library's canonical path.
    pub(crate) path: PathBuf,
    /// What its last start reported.
    pub(crate) record: StartRecord,
    /// What the sandbox it got then lets it do, in a phrase.
    pub(crate) may_do: Option<String>,
    /// When its library file was last written.
    pub(crate) built: Option<SystemTime>,
}

/// One isolated pack of one session, offered from its record.
pub struct DeferredPack {
    path: PathBuf,
    record: StartRecord,
    may_do: Option<String>,
    built: Option<SystemTime>,
    starter: Starter,
    started: Mutex<Option<Started>>,
}

impl DeferredPack {
    pub(crate) fn new(recorded: Recorded, starter: Starter) -> Self {
        let Recorded {
            path,
            record,
            may_do,
            built,
        } = recorded;
        Self {
            path,
            record,
            may_do,
            built,
            starter,
            started: Mutex::new(None),
        }
    }

    /// What its last start reported.
    pub fn record(&self) -> &StartRecord {
        &self.record
    }

    /// The library's canonical path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// When its library file was last written (its build).
    pub fn built(&self) -> Option<SystemTime> {
        self.built
    }

    /// What the sandbox of its last start let it do, in a phrase.
    pub fn may_do(&self) -> Option<String> {
        self.may_do.clone()
    }

    /// True once the session started it (or tried to).
    pub fn is_started(&self) -> bool {
        xcsh_core::sync::lock(&self.started).is_some()
    }

    /// The started tool `tool`, starting the pack on first use.
    fn tool(&self, tool: &str) -> Result<Arc<IsolatedTool>, ToolError> {
        let mut started = xcsh_core::sync::lock(&self.started);
        let started = started.get_or_insert_with(|| {
            let result = self.start();
            if let Err(failure) = &result {
                tracing::warn!(
                    "Failed to start isolated tool pack {} ({}): {}",
                    self.record.name,
                    self.path.display(),
                    error_line(failure)
                );
            }
            result
        });
        let name = &self.record.name;
        match started {
            Ok(tools) => tools.get(tool).cloned().ok_or_else(|| {
                ToolError::new(format!(
                    "Tool {tool} is unavailable: isolated pack {name} no longer offers it"
                ))
            }),
            Err(failure) => Err(ToolError::new(format!(
                "Tool {tool} is unavailable: isolated pack {name} failed to start: {}",
                error_line(failure)
            ))),
        }
    }

    /// Opens, checks and starts the pack as a start-up would, then holds
    /// it to its record.
    fn start(&self) -> Started {
        tracing::info!(pack = %self.record.name, "starting isolated tool pack at first use");
        let (pack, specs) = (self.starter)(&self.path)?;
        let sha256 = pack.sha256()?;
        if sha256 != self.record.sha256 {
            return Err(DeferredStartError::Changed {
                path: self.path.clone(),
                sha256,
                recorded: self.record.sha256.clone(),
            });
        }
        if let Some(difference) = difference(&self.record.tools, &specs) {
            return Err(DeferredStartError::OtherTools { difference });
        }
        specs
            .into_iter()
            .map(|spec| {
                let tool = IsolatedTool::new(spec, Arc::clone(&pack))?;
                Ok((Tool::name(&tool).to_owned(), Arc::new(tool)))
            })
            .collect()
    }
}

/// The first way `now` differs from `recorded`, in a phrase.
fn difference(recorded: &[ToolSpec], now: &[ToolSpec]) -> Option<String> {
    for spec in recorded {
        match now.iter().find(|other| other.name == spec.name) {
            None => return Some(format!("{} is gone", spec.name)),
            Some(other) if other != spec => {
                return Some(format!("{}'s descriptor changed", spec.name));
            }
            Some(_) => {}
        }
    }
    now.iter()
        .find(|spec| !recorded.iter().any(|old| old.name == spec.name))
        .map(|spec| format!("{} is new", spec.name))
}

impl fmt::Debug for DeferredPack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeferredPack")
            .field("name", &self.record.name)
            .field("path", &self.path)
            .field("started", &self.is_started())
            .finish_non_exhaustive()
    }
}

/// A tool of a deferred pack: its recorded descriptor until called.
pub struct DeferredTool {
    descriptor: Descriptor,
    pack: Arc<DeferredPack>,
}

impl DeferredTool {
    /// The tool `spec` (from `pack`'s record).
    ///
    /// # Errors
    ///
    /// A schema that is not valid JSON.
    pub(crate) fn new(spec: &ToolSpec, pack: Arc<DeferredPack>) -> Result<Self, ToolSpecError> {
        Ok(Self {
            descriptor: Descriptor::from_spec(spec)?,
            pack,
        })
    }
}

/// Its recorded descriptor; a call starts the pack first.
impl Tool for DeferredTool {
    fn name(&self) -> &str {
        &self.descriptor.name
    }

    /// Its pack's process stops at the limit itself (starting it counts as
    /// the first call's work, under the same limit).
    fn enforces_time_limit(&self) -> bool {
        true
    }

    fn label(&self) -> &str {
        &self.descriptor.label
    }

    fn description(&self) -> &str {
        &self.descriptor.description
    }

    fn parameters(&self) -> &Value {
        &self.descriptor.parameters
    }

    fn hints(&self) -> ToolHints {
        self.descriptor.hints
    }

    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.pack
            .tool(&self.descriptor.name)?
            .execute(arguments, context)
    }
}

impl fmt::Debug for DeferredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeferredTool")
            .field("name", &self.descriptor.name)
            .field("pack", &self.pack.record.name)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use xcsh_isolate_protocol::Hints;

    use super::*;

    fn spec(name: &str, description: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            label: name.into(),
            description: description.into(),
            parameters_json: "{}".into(),
            hints: Hints::default(),
        }
    }

    #[test]
    fn a_failed_start_at_first_use_reads_as_one_line() {
        let changed = DeferredStartError::Changed {
            path: "/packs/libbatch_rename.so".into(),
            sha256: "ab".to_owned(),
            recorded: "cd".to_owned(),
        };
        assert_eq!(
            error_line(&changed),
            "/packs/libbatch_rename.so changed after this session was shown its tools (SHA-256 ab, then cd); restart xcsh to offer its tools anew"
        );
        let bad_schema = ToolSpec {
            parameters_json: "{".into(),
            ..spec("a", "does a")
        };
        let error = DeferredStartError::from(Descriptor::from_spec(&bad_schema).unwrap_err());
        assert_eq!(
            error_line(&error),
            "a: parameters are not valid JSON: EOF while parsing an object at line 1 column 1"
        );
    }

    #[test]
    fn a_difference_names_the_first_changed_tool() {
        let recorded = [spec("a", "does a"), spec("b", "does b")];
        assert_eq!(difference(&recorded, &recorded), None);
        assert_eq!(
            difference(&recorded, &[spec("a", "does a")]).as_deref(),
            Some("b is gone")
        );
        assert_eq!(
            difference(&recorded, &[spec("a", "does A"), spec("b", "does b")]).as_deref(),
            Some("a's descriptor changed")
        );
        assert_eq!(
            difference(&recorded[..1], &recorded).as_deref(),
            Some("b is new")
        );
    }
}
