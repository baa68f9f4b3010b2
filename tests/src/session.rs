//! A session with packs loaded, and shorthand for driving it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use xcsh_core::{Session, ToolCall, ToolResult};
use xcsh_loader::{HostBinding, LoadReport, load_packs_with};

/// A session in a working directory with some packs loaded.
#[derive(Debug)]
pub struct TestSession {
    /// The session (shared: a model loop runs it on threads of its own).
    pub session: Arc<Session>,
    /// What loading the packs did.
    pub report: LoadReport,
}

impl TestSession {
    /// A session in `cwd` with the packs at `paths`, bound to its store.
    pub fn new(cwd: &Path, paths: &[PathBuf]) -> Self {
        let session = Session::new(cwd);
        let report = xcsh_loader::load_packs(&session, paths);
        Self {
            session: Arc::new(session),
            report,
        }
    }

    /// A session whose packs were created in a runtime without a store.
    pub fn without_store(cwd: &Path, paths: &[PathBuf]) -> Self {
        let session = Session::new(cwd);
        let report = load_packs_with(&session, &HostBinding::without_store(cwd), paths);
        Self {
            session: Arc::new(session),
            report,
        }
    }

    /// Calls `tool` with `arguments`.
    pub fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.session
            .execute(&ToolCall::new("test-call", tool, arguments))
    }

    /// Calls `resolve` with `action` (`apply`/`discard`) and `reason`.
    pub fn resolve(&self, action: &str, reason: &str) -> ToolResult {
        self.call("resolve", json!({"action": action, "reason": reason}))
    }

    /// Labels of the pending actions, newest first.
    pub fn pending_labels(&self) -> Vec<String> {
        self.session
            .store()
            .views()
            .into_iter()
            .map(|v| v.label)
            .collect()
    }

    /// The problem lines of the load report.
    pub fn problems(&self) -> Vec<String> {
        self.report.problems()
    }

    /// True if a tool of that name is registered.
    pub fn has_tool(&self, name: &str) -> bool {
        self.session.tools().iter().any(|t| t.name() == name)
    }
}
