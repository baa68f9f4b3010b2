//! What the undo tests share: a session with undo's observer, and an
//! apply through `resolve`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use xcsh_core::{PendingAction, Session, ToolCall, ToolOutput};
use xcsh_undo::{Limits, UndoObserver};

/// A session working in `work`, its undo records in `root`, both in
/// `_temp`.
pub struct Fixture {
    pub _temp: tempfile::TempDir,
    pub root: PathBuf,
    pub work: PathBuf,
    pub session: Session,
}

impl Fixture {
    /// A session in `work` (already filled) whose applies undo records in
    /// `root`, with the default limits.
    pub fn new(temp: tempfile::TempDir, root: PathBuf, work: PathBuf) -> Self {
        let session = Session::new(&work);
        session.set_apply_observer(Arc::new(UndoObserver::new(&root, &work, Limits::default())));
        Self {
            _temp: temp,
            root,
            work,
            session,
        }
    }
}

/// Pushes an action labelled `label` whose apply runs `change` in the
/// session's working directory, and applies it through `resolve`.
pub fn apply(session: &Session, label: &str, change: impl Fn(&Path) + Send + Sync + 'static) {
    let cwd = session.cwd().to_owned();
    let action = PendingAction::try_new(label, move |_| {
        change(&cwd);
        Ok(ToolOutput::text("done"))
    })
    .unwrap();
    session.store().push(action);
    let result = session.execute(&ToolCall::new(
        "c",
        "resolve",
        json!({"action": "apply", "reason": "r"}),
    ));
    assert!(!result.is_error, "{result:?}");
}
