//! `xcsh repl`: an interactive session with line editing, history, tab
//! completion of tool names and the pending stack in the prompt.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Editor, Helper};
use serde_json::{Value, json};
use xcsh_core::{RESOLVE_TOOL_NAME, Session};

use xcsh_agent::Agent;
use xcsh_script::{Request, Step, StepFront, StepTurns, Steps, parse_request};
use xcsh_sources::UserDirs;
use xcsh_text::escape;

use crate::render;

/// What `help` prints.
pub const HELP: &str = r#"Call a tool:
  NAME {JSON arguments}            e.g. batch_rename_preview {"files": ["a.txt"], "rule": {"kind": "prefix", "prefix": "old-"}}
  {"tool": NAME, "arguments": {…}}   the same, as a script line
Resolve the newest pending action:
  apply [REASON]                   resolve with action "apply"
  discard [REASON]                 resolve with action "discard"
Undo an apply (see docs/undo.md):
  undo [ID] [--force]              show what it changed, then ask
  undo --list                      the applies that can be undone
Look around:
  tools                            the tools you can call
  pending                          the pending actions, newest first
  help                             this text
Leave: exit, quit or Ctrl-D (pending actions are discarded, never applied).
Tab completes tool names and commands."#;

/// REPL words that are not tools.
const COMMANDS: &[&str] = &[
    "apply", "discard", "exit", "help", "pending", "quit", "tools", "undo",
];

/// Reasons given to `resolve` when `apply`/`discard` name none.
const DEFAULT_APPLY_REASON: &str = "approved by the user";
const DEFAULT_DISCARD_REASON: &str = "rejected by the user";

/// The prompt, showing the pending stack: `xcsh> ` or `xcsh [1 pending]> `.
pub fn prompt(pending: usize) -> String {
    if pending == 0 {
        "xcsh> ".to_owned()
    } else {
        format!("xcsh [{pending} pending]> ")
    }
}

/// What one line of input asks for.
#[derive(Debug, PartialEq)]
pub enum Input {
    /// Nothing (a blank line).
    Empty,
    /// Print [`HELP`].
    Help,
    /// List the tools.
    Tools,
    /// List the pending actions.
    Pending,
    /// Leave the REPL.
    Quit,
    /// Call a tool.
    Call(Request),
    /// Undo an apply (`xcsh undo`'s options).
    Undo(crate::cli::UndoArgs),
    /// Not understood: the message says why.
    Invalid(String),
}

/// `undo [ID] [--force]` or `undo --list`.
fn undo_input(rest: &str) -> Input {
    let mut args = crate::cli::UndoArgs::default();
    for word in rest.split_whitespace() {
        match word {
            "--list" => args.list = true,
            "--force" => args.force = true,
            _ => match word.parse() {
                Ok(id) if args.id.is_none() => args.id = Some(id),
                _ => {
                    return Input::Invalid(format!(
                        "undo: unexpected {word:?} (undo [ID] [--force], or undo --list)"
                    ));
                }
            },
        }
    }
    Input::Undo(args)
}

/// Reads one line of REPL input.
pub fn parse(line: &str) -> Input {
    let line = line.trim();
    let (word, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(word, rest)| (word, rest.trim()));
    match word {
        "" => Input::Empty,
        "help" | "?" => Input::Help,
        "tools" => Input::Tools,
        "pending" => Input::Pending,
        "exit" | "quit" => Input::Quit,
        "undo" => undo_input(rest),
        "apply" | "discard" => {
            let default = if word == "apply" {
                DEFAULT_APPLY_REASON
            } else {
                DEFAULT_DISCARD_REASON
            };
            let reason = if rest.is_empty() { default } else { rest };
            Input::Call(Request {
                id: None,
                tool: RESOLVE_TOOL_NAME.to_owned(),
                arguments: json!({"action": word, "reason": reason}),
            })
        }
        _ if line.starts_with('{') => match parse_request(line) {
            Ok(request) => Input::Call(request),
            Err(rejected) => Input::Invalid(format!("{}: {}", rejected.kind, rejected.cause)),
        },
        tool => {
            let arguments = if rest.is_empty() {
                Ok(json!({}))
            } else {
                serde_json::from_str::<Value>(rest)
            };
            match arguments {
                Ok(arguments) => Input::Call(Request {
                    id: None,
                    tool: tool.to_owned(),
                    arguments,
                }),
                Err(error) => Input::Invalid(format!("invalid JSON arguments for {tool}: {error}")),
            }
        }
    }
}

/// Runs the REPL on the terminal until `exit` or end of input.
///
/// # Errors
///
/// The terminal cannot be set up or read.
pub fn run(agent: &Agent) -> anyhow::Result<()> {
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .auto_add_history(false)
        .build();
    let mut editor: Editor<ToolNames, DefaultHistory> =
        Editor::with_config(config).context("cannot set up the terminal")?;
    let mut words = agent.tool_names();
    words.extend(COMMANDS.iter().map(|c| (*c).to_owned()));
    words.sort();
    words.dedup();
    editor.set_helper(Some(ToolNames(words)));
    let history = history_path();
    if let Some(path) = &history
        && let Err(error) = editor.load_history(path)
    {
        tracing::debug!(path = %path.display(), %error, "no REPL history loaded");
    }

    println!("{}", banner(agent));
    let steps = Steps::new().showing_progress(Arc::new(|tool, partial| {
        println!("{}", render::progress::line(tool, partial));
    }));
    // Through the drive: reading, calling and printing share one thread,
    // which a call past the time limit leaves to a fresh one.
    let driven = xcsh_core::drive(
        &agent.session,
        StepTurns::new(Repl { editor, entry: 0 }, steps),
    );
    let (Repl { mut editor, .. }, failed) = driven.into_parts();
    if let Some(path) = &history {
        save_history(&mut editor, path);
    }
    let left = agent.session.store().len();
    if left > 0 {
        println!(
            "{} left pending; nothing was applied for {}.",
            xcsh_text::count(left, "action"),
            if left == 1 { "it" } else { "them" }
        );
    }
    // Discarded through their reject code, as under every front end.
    agent.session.end();
    match failed {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// The REPL's side of the drive: lines from the terminal in, steps out.
struct Repl {
    editor: Editor<ToolNames, DefaultHistory>,
    /// The number of the last entry (call or invalid line).
    entry: usize,
}

impl Repl {
    /// Reads lines, answering those that are not calls, until one is a
    /// call (`Some`) or the user leaves (`None`).
    fn next_line(&mut self, session: &Session, steps: &Steps) -> anyhow::Result<Option<Request>> {
        loop {
            let line = match self.editor.readline(&prompt(session.store().len())) {
                Ok(line) => line,
                Err(ReadlineError::Interrupted) => continue,
                Err(ReadlineError::Eof) => return Ok(None),
                Err(error) => return Err(error).context("cannot read input"),
            };
            let input = parse(&line);
            if input != Input::Empty {
                let _ = self.editor.add_history_entry(line.trim());
            }
            match input {
                Input::Empty => {}
                Input::Help => println!("{HELP}"),
                Input::Tools => print!("{}", tool_list(session)),
                Input::Pending => {
                    match render::pending_line(&session.store().summary(usize::MAX)) {
                        Some(line) => println!("{line}"),
                        None => println!("Nothing pending."),
                    }
                }
                Input::Quit => return Ok(None),
                Input::Undo(args) => self.undo(session, &args),
                Input::Call(request) => return Ok(Some(request)),
                Input::Invalid(message) => {
                    self.entry += 1;
                    let step = steps.reject(session, self.entry, None, message);
                    println!("{}", render::step(&step));
                }
            }
        }
    }

    /// `undo`, asking on the terminal.
    fn undo(&mut self, session: &Session, args: &crate::cli::UndoArgs) {
        let editor = &mut self.editor;
        let mut out = std::io::stdout();
        let mut ask = |_: &mut std::io::Stdout| {
            let answer = editor.readline(crate::undo::QUESTION);
            Ok(answer.is_ok_and(|answer| crate::undo::is_yes(&answer)))
        };
        let request = args.request();
        let user = UserDirs::from_os();
        if let Err(error) =
            xcsh_agent::undo::command::run(&request, session.cwd(), &user, &mut ask, &mut out)
        {
            println!("error: {error}");
        }
    }
}

impl StepFront for Repl {
    type Error = anyhow::Error;

    fn next_request(
        &mut self,
        session: &Session,
        steps: &Steps,
    ) -> anyhow::Result<Option<(usize, Request)>> {
        let Some(request) = self.next_line(session, steps)? else {
            return Ok(None);
        };
        self.entry += 1;
        Ok(Some((self.entry, request)))
    }

    fn show(&mut self, step: &Step) -> anyhow::Result<()> {
        println!("{}", render::step(step));
        Ok(())
    }
}

/// `xcsh 0.1.0: 3 tools, 1 pack loaded, 0 failed. Type help for commands, Ctrl-D to quit.`
fn banner(agent: &Agent) -> String {
    format!(
        "xcsh {}: {}, {} loaded, {} failed. Type help for commands, Ctrl-D to quit.",
        env!("CARGO_PKG_VERSION"),
        xcsh_text::count(agent.session.tools().len(), "tool"),
        xcsh_text::count(agent.report.loaded.len(), "pack"),
        agent.report.failures.len(),
    )
}

/// `  name  label` per tool, names and labels escaped.
fn tool_list(session: &Session) -> String {
    let rows: Vec<(String, String)> = session
        .tools()
        .iter()
        .map(|tool| {
            (
                escape::line(tool.name()).into_owned(),
                escape::line(tool.label()).into_owned(),
            )
        })
        .collect();
    let width = rows
        .iter()
        .map(|(name, _)| name.chars().count())
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|(name, label)| format!("  {name:width$}  {label}\n"))
        .collect()
}

fn history_path() -> Option<PathBuf> {
    UserDirs::from_os().data.map(|dir| dir.join("history.txt"))
}

fn save_history(editor: &mut Editor<ToolNames, DefaultHistory>, path: &PathBuf) {
    let saved = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .map_err(ReadlineError::from)
        .and_then(|()| editor.save_history(path));
    if let Err(error) = saved {
        tracing::debug!(path = %path.display(), %error, "REPL history not saved");
    }
}

/// Completes the first word of a line from the tool names and REPL commands.
struct ToolNames(Vec<String>);

impl Completer for ToolNames {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before.len() - before.trim_start().len();
        let word = &before[start..];
        if word.contains(char::is_whitespace) {
            return Ok((pos, Vec::new()));
        }
        let matches = self
            .0
            .iter()
            .filter(|name| name.starts_with(word))
            .cloned()
            .collect();
        Ok((start, matches))
    }
}

impl Hinter for ToolNames {
    type Hint = String;
}

impl Highlighter for ToolNames {}

impl Validator for ToolNames {}

impl Helper for ToolNames {}

#[cfg(test)]
mod tests;
