//! An isolated pack: its current process, restarted after a crash, and
//! disabled when it keeps crashing.

use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde_json::Value;
use xcsh_core::sync::lock;
use xcsh_core::{PendingActionStore, ToolContext, ToolError, ToolOutput};
use xcsh_isolate_protocol::{
    Opened, Outcome, Request, SandboxStatus, ToolSpec, convert, error_line,
};

use super::ending::{Ending, Failure};
use super::process::{OnCrash, PackProcess};
use super::sandbox_status;
use super::start_error::StartError;
use super::start_spec::StartSpec;

/// A pack is disabled after this many crashes within [`CRASH_WINDOW`].
pub const MAX_CRASHES: usize = 3;

/// See [`MAX_CRASHES`].
pub const CRASH_WINDOW: Duration = Duration::from_secs(60);

#[derive(Debug, Default)]
struct Health {
    crashes: VecDeque<Instant>,
    disabled: bool,
}

impl Health {
    /// Records a crash; true if it disables the pack.
    fn crashed(&mut self, now: Instant) -> bool {
        self.crashes.push_back(now);
        while self
            .crashes
            .front()
            .is_some_and(|&at| now.duration_since(at) > CRASH_WINDOW)
        {
            self.crashes.pop_front();
        }
        let disable = !self.disabled && self.crashes.len() >= MAX_CRASHES;
        self.disabled |= disable;
        disable
    }
}

/// One isolated pack of one session.
pub struct IsolatedPack {
    name: String,
    version: String,
    path: PathBuf,
    sandbox: SandboxStatus,
    spec: StartSpec,
    store: Weak<PendingActionStore>,
    timeout: Option<Duration>,
    process: Mutex<Option<Arc<PackProcess>>>,
    health: Arc<Mutex<Health>>,
}

impl IsolatedPack {
    /// Starts the pack's process and opens the pack in it; pushes go to
    /// `store`, and each call, apply and reject is limited to `timeout`.
    ///
    /// # Errors
    ///
    /// Why its process did not start or open the pack (a load report shows
    /// it as [`error_line`] writes it).
    pub fn start(
        spec: StartSpec,
        store: Weak<PendingActionStore>,
        timeout: Option<Duration>,
    ) -> Result<(Arc<Self>, Vec<ToolSpec>), StartError> {
        let health = Arc::new(Mutex::new(Health::default()));
        let (process, opened) =
            PackProcess::start(&spec, store.clone(), timeout, on_crash(&health))?;
        let Opened {
            name,
            version,
            path,
            tools,
            sandbox,
            ..
        } = opened;
        let pack = Arc::new(Self {
            name,
            version,
            path,
            sandbox,
            spec,
            store,
            timeout,
            process: Mutex::new(Some(process)),
            health,
        });
        Ok((pack, tools))
    }

    /// The pack's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The pack's version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The library's canonical path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// When its library file was last written (its build).
    pub fn built(&self) -> Option<std::time::SystemTime> {
        self.spec.pack.built()
    }

    /// The SHA-256 of the sealed copy of its library that its processes
    /// map.
    ///
    /// # Errors
    ///
    /// The copy could not be read.
    pub fn sha256(&self) -> Result<String, xcsh_loader::LoadError> {
        self.spec.pack.sha256()
    }

    /// The sandbox its process runs in.
    pub fn sandbox(&self) -> &SandboxStatus {
        &self.sandbox
    }

    /// What its sandbox lets it do, in a phrase (see
    /// [`describe_sandbox`](super::sandbox_status::describe_sandbox)'s
    /// companion).
    pub fn may_do(&self) -> Option<String> {
        sandbox_status::may_do(&self.spec.open.sandbox, &self.sandbox)
    }

    /// True once it crashed too often and was disabled.
    pub fn is_disabled(&self) -> bool {
        lock(&self.health).disabled
    }

    /// Runs tool `tool` with `arguments` in the pack's process.
    ///
    /// # Errors
    ///
    /// The tool's own error, or why its process gave no answer.
    pub fn call(
        &self,
        tool: &str,
        arguments: &Value,
        context: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments_json = arguments.to_string();
        let request = |id| Request::Call {
            id,
            tool: tool.to_owned(),
            call_id: context.call_id().to_owned(),
            arguments_json: arguments_json.clone(),
        };
        let what = format!("Tool {tool}");
        let mut outcome = self
            .process(tool)?
            .request(request, Some(context), self.timeout, &what);
        // The process went between our look and our request: nothing was
        // sent to it, so one fresh process may take the call.
        if let Err(Failure::EndedBefore(_)) = outcome {
            outcome = self
                .process(tool)?
                .request(request, Some(context), self.timeout, &what);
        }
        let name = &self.name;
        match outcome {
            Ok(Outcome::Output(output)) => convert::output_from_wire(output),
            Ok(Outcome::Nothing) => Ok(ToolOutput::default()),
            Ok(Outcome::Error {
                message,
                details_json,
            }) => Err(convert::error_from_wire(message, details_json)),
            Err(Failure::Ended(ending) | Failure::EndedBefore(ending)) => {
                Err(ToolError::new(format!(
                    "Tool {tool} crashed: {}; {}{}",
                    ending.sentence(name),
                    self.next_step(),
                    ending.stderr_suffix()
                )))
            }
            Err(Failure::TimedOut(limit)) => Err(ToolError::new(format!(
                "Tool {tool} timed out after {limit:?}; the process of pack {name} was killed; {}",
                self.next_step()
            ))),
        }
    }

    /// What happens next, after a crash.
    fn next_step(&self) -> String {
        if self.is_disabled() {
            format!(
                "the pack is now disabled: its process crashed {MAX_CRASHES} times within {CRASH_WINDOW:?}"
            )
        } else {
            "the pack restarts on the next call".to_owned()
        }
    }

    /// The running process, or a new one if the last one ended.
    fn process(&self, tool: &str) -> Result<Arc<PackProcess>, ToolError> {
        let unavailable =
            |why: String| ToolError::new(format!("Tool {tool} is unavailable: {why}"));
        if self.is_disabled() {
            return Err(unavailable(format!(
                "pack {} was disabled after its process crashed {MAX_CRASHES} times within {CRASH_WINDOW:?}",
                self.name
            )));
        }
        let mut current = lock(&self.process);
        if let Some(process) = current.as_ref().filter(|p| !p.has_ended()) {
            return Ok(Arc::clone(process));
        }
        tracing::info!(pack = %self.name, "starting the pack's process again");
        let (process, _) = PackProcess::start(
            &self.spec,
            self.store.clone(),
            self.timeout,
            on_crash(&self.health),
        )
        .map_err(|cause| {
            unavailable(format!(
                "cannot restart the process of pack {}: {}",
                self.name,
                error_line(&cause)
            ))
        })?;
        *current = Some(Arc::clone(&process));
        Ok(process)
    }
}

/// Counts a crash of one of the pack's processes; the one that disables
/// the pack is reported in one line.
fn on_crash(health: &Arc<Mutex<Health>>) -> OnCrash {
    let health = Arc::downgrade(health);
    Arc::new(move |pack: &str, ending: &Ending| {
        let Some(health) = health.upgrade() else {
            return;
        };
        tracing::info!("{}", ending.sentence(pack));
        if lock(&health).crashed(Instant::now()) {
            tracing::warn!(
                "Tool pack {pack} disabled: its process crashed {MAX_CRASHES} times within {CRASH_WINDOW:?}; its tools answer with an error until xcsh restarts"
            );
        }
    })
}

impl Drop for IsolatedPack {
    /// Shuts the process down; it ends on its own (see
    /// [`running::wait_for_all`](super::running::wait_for_all)).
    fn drop(&mut self) {
        if let Some(process) = lock(&self.process).take() {
            process.shut_down();
        }
    }
}

impl fmt::Debug for IsolatedPack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsolatedPack")
            .field("name", &self.name)
            .field("path", &self.path)
            .field("sandbox", &self.sandbox)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_third_crash_within_a_minute_disables_the_pack_once() {
        let start = Instant::now();
        let mut health = Health::default();
        assert!(!health.crashed(start));
        assert!(!health.crashed(start + Duration::from_secs(61)));
        assert!(
            !health.crashed(start + Duration::from_secs(62)),
            "the first fell out of the window"
        );
        assert!(health.crashed(start + Duration::from_secs(63)));
        assert!(health.disabled);
        assert!(
            !health.crashed(start + Duration::from_secs(64)),
            "reported once"
        );
    }
}
