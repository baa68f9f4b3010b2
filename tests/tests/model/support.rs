//! A session with the batch-rename pack over draft files, a journal kept
//! in memory, a first turn scripted as the model's, and the loop's events
//! kept for the assertions.

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tempfile::TempDir;
use xcsh_core::{Journal, JournalEntry, JournalEvent, ToolCall, ToolChoice, ToolResult};
use xcsh_model::{Conversation, Event, Message, Observer, ladder::Step};
use xcsh_test_support::{TestSession, pack_path};

/// The draft files every test starts with.
pub const DRAFTS: [&str; 2] = ["draft-intro.md", "draft-usage.md"];

/// The task the model is given.
pub const TASK: &str = "Rename the draft files so that they start with final- instead of draft-.";

/// A directory with the drafts in it.
pub fn workspace() -> TempDir {
    let dir = TempDir::new().unwrap();
    for file in DRAFTS {
        fs::write(dir.path().join(file), format!("contents of {file}")).unwrap();
    }
    dir
}

/// The file names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Journal entries, kept in memory.
#[derive(Debug, Default)]
pub struct Recorder(pub Mutex<Vec<JournalEntry>>);

impl Journal for Recorder {
    fn record(&self, entry: &JournalEntry) {
        self.0.lock().unwrap().push(entry.clone());
    }
}

impl Recorder {
    /// The resolve entries.
    pub fn resolves(&self) -> Vec<JournalEntry> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|entry| entry.event == JournalEvent::Resolve)
            .cloned()
            .collect()
    }
}

/// A session with the batch-rename pack in `dir`, journaling to the
/// returned recorder.
pub fn session(dir: &TempDir) -> (TestSession, Arc<Recorder>) {
    let session = TestSession::new(dir.path(), &[pack_path("batch-rename")]);
    assert!(session.report.is_clean(), "{:?}", session.problems());
    let journal = Arc::new(Recorder::default());
    session.session.set_journal(journal.clone());
    (session, journal)
}

/// The conversation after a first turn scripted as the model's: the task,
/// then a `batch_rename_preview` of the drafts, run in the session (which
/// pushes the pending action) with its result.
pub fn scripted_first_turn(session: &TestSession) -> Conversation {
    let arguments = json!({
        "files": DRAFTS,
        "rule": {"kind": "regex", "pattern": "^draft-", "replacement": "final-"},
    });
    let call = ToolCall::new("call_preview", "batch_rename_preview", arguments);
    let result = session.session.execute(&call);
    assert!(!result.is_error, "{}", result.text());
    assert!(session.session.store().has_pending());
    let mut conversation = Conversation::new(Some(xcsh_model::DEFAULT_SYSTEM_PROMPT.into()), TASK);
    conversation.push(Message::Assistant {
        text: String::new(),
        calls: vec![call.clone()],
    });
    conversation.push(Message::ToolResult {
        call_id: call.id,
        name: call.name,
        text: result.text(),
        is_error: false,
    });
    conversation
}

/// One event of the loop, owned.
#[derive(Clone, Debug, PartialEq)]
pub enum Seen {
    /// A request went out with this choice and this many tools.
    Request(ToolChoice, usize),
    /// The model's text.
    Text(String),
    /// A call ran.
    Call(ToolCall, ToolResult),
    /// The ladder stepped down.
    Ladder(Step),
}

/// Keeps every event, in order.
#[derive(Debug, Default)]
pub struct Keep(pub Vec<Seen>);

impl Observer for Keep {
    fn observe(&mut self, event: Event<'_>) {
        self.0.push(match event {
            Event::Request {
                tool_choice, tools, ..
            } => Seen::Request(tool_choice.clone(), tools),
            Event::Text { text, .. } => Seen::Text(text.to_owned()),
            Event::Call { call, result } => Seen::Call(call.clone(), result.clone()),
            Event::Ladder { step } => Seen::Ladder(step.clone()),
            _ => return,
        });
    }
}

/// The choices of the requests, in order.
pub fn choices(seen: &[Seen]) -> Vec<ToolChoice> {
    seen.iter()
        .filter_map(|seen| match seen {
            Seen::Request(choice, _) => Some(choice.clone()),
            _ => None,
        })
        .collect()
}

/// The calls of `resolve`, with their results.
pub fn resolves(seen: &[Seen]) -> Vec<(ToolCall, ToolResult)> {
    seen.iter()
        .filter_map(|seen| match seen {
            Seen::Call(call, result) if call.name == "resolve" => {
                Some((call.clone(), result.clone()))
            }
            _ => None,
        })
        .collect()
}

/// `{"type": "tool", "name": "resolve"}`.
pub fn forced_resolve() -> ToolChoice {
    ToolChoice::Tool {
        name: "resolve".into(),
    }
}

/// The action a resolve call chose (`apply` or `discard`).
pub fn chosen(call: &ToolCall) -> &str {
    call.arguments
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or_default()
}
