//! A session with `ast_edit` registered, working in a temporary source tree.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tempfile::TempDir;
use xcsh_core::{Session, ToolCall, ToolResult};

/// A temporary source tree and a session working in it.
pub struct Fixture {
    dir: TempDir,
    pub session: Session,
}

impl Fixture {
    /// Writes `files` (relative path, content) and opens a session there.
    pub fn new(files: &[(&str, &str)]) -> Self {
        Self::with_options(files, xcsh_ast_edit::AstEditOptions::default())
    }

    /// [`Fixture::new`] with `ast_edit` under `options`.
    pub fn with_options(files: &[(&str, &str)], options: xcsh_ast_edit::AstEditOptions) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        let session = Session::new(dir.path());
        xcsh_ast_edit::register_builtins_with(&session, options).unwrap();
        Self { dir, session }
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    pub fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.path(relative)).unwrap()
    }

    pub fn write(&self, relative: &str, content: &str) {
        fs::write(self.path(relative), content).unwrap();
    }

    /// Every file of the tree with its bytes.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn visit(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    visit(&path, root, out);
                } else {
                    let relative = path.strip_prefix(root).unwrap().to_path_buf();
                    out.insert(relative, fs::read(&path).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        visit(self.dir.path(), self.dir.path(), &mut out);
        out
    }

    pub fn ast_edit(&self, arguments: Value) -> ToolResult {
        self.session
            .execute(&ToolCall::new("edit", "ast_edit", arguments))
    }

    pub fn resolve(&self, action: &str, reason: &str) -> ToolResult {
        self.session.execute(&ToolCall::new(
            "resolve",
            "resolve",
            json!({"action": action, "reason": reason}),
        ))
    }

    /// Labels and source tool names of the pending actions, newest first.
    pub fn pending(&self) -> Vec<(String, String)> {
        self.session
            .store()
            .views()
            .into_iter()
            .map(|view| (view.label, view.source_tool_name))
            .collect()
    }
}

/// `(label, "ast_edit")`, as [`Fixture::pending`] lists it.
pub fn ast_edit_action(label: &str) -> (String, String) {
    (label.to_owned(), "ast_edit".to_owned())
}
