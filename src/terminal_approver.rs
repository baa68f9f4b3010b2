//! `xcsh repl` asks on the terminal: the request with its preview, then
//! yes / no, and on no an optional reason.

use rustyline::DefaultEditor;
use rustyline::error::ReadlineError;
use xcsh_core::{Answer, ApprovalRequest, Approver};

use xcsh_text::escape_controls;

/// The question under the request.
pub const QUESTION: &str = "Apply it? [y]es / [n]o / Enter to leave it pending: ";

/// Asked after a no.
pub const REASON_QUESTION: &str = "Why not? (optional, told to the model): ";

/// Asked again after an answer that is none of the above.
pub const AGAIN: &str = "Please answer y or n (Enter leaves it pending).";

/// Asks the person at the terminal.
#[derive(Debug, Default)]
pub struct TerminalApprover;

/// What the person sees above the question, pack-supplied text escaped
/// (line breaks kept) so it cannot drive the terminal.
pub fn describe(request: &ApprovalRequest) -> String {
    format!(
        "Approval needed ({} policy: ask)\n{}",
        escape_controls(&request.tool, false),
        escape_controls(&request.to_text(), true)
    )
}

/// A line read from the person; `None` on Enter, Ctrl-C or Ctrl-D.
fn read(editor: &mut DefaultEditor, prompt: &str) -> Option<String> {
    match editor.readline(prompt) {
        Ok(line) if line.trim().is_empty() => None,
        Ok(line) => Some(line.trim().to_owned()),
        Err(ReadlineError::Interrupted | ReadlineError::Eof) => None,
        Err(error) => {
            tracing::warn!("cannot read the answer: {error}");
            None
        }
    }
}

impl Approver for TerminalApprover {
    fn ask(&self, request: &ApprovalRequest) -> Answer {
        let mut editor = match DefaultEditor::new() {
            Ok(editor) => editor,
            Err(error) => {
                return Answer::Unavailable(format!("the terminal cannot be read ({error})"));
            }
        };
        println!("{}", describe(request));
        loop {
            let Some(answer) = read(&mut editor, QUESTION) else {
                return Answer::Cancel;
            };
            match answer.to_lowercase().as_str() {
                "y" | "yes" => return Answer::Approve,
                "n" | "no" => {
                    let reason = read(&mut editor, REASON_QUESTION);
                    return Answer::Decline { reason };
                }
                _ => println!("{AGAIN}"),
            }
        }
    }
}
