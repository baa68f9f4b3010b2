//! Telling a refused tool choice from a failed request.
//!
//! Providers refuse a forced choice in their own words and statuses:
//! Anthropic answers 400 "Thinking may not be enabled when tool_choice
//! forces tool use.", vLLM 400 "\"auto\" tool choice requires …",
//! llama-cpp-python 500 to `required`. A 400, 422 or 500 to a forced
//! choice is a refusal when its message names the tool choice; otherwise
//! it may be one, and only the same request sent without the forced choice
//! can tell (the loop sends the next rung's request, and counts the forced
//! rung refused only once that one goes through). Any other error, and any
//! error to a request that forced nothing, is the server failing.

use crate::ModelError;
use crate::ladder::Rung;

/// What a failed request says about its tool choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The provider refused the forced choice: its error names it.
    Refused {
        /// The status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// Perhaps refused: known once the request without it goes through.
    Unsure {
        /// The status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The server failed; the choice has nothing to do with it.
    Failed,
}

/// The statuses a provider refuses a request's content with.
const REFUSING_STATUSES: [u16; 3] = [400, 422, 500];

/// What `error`, the answer to a request at `rung`, says about the choice.
pub(crate) fn verdict(error: &ModelError, rung: Option<Rung>) -> Verdict {
    let ModelError::Status {
        status, message, ..
    } = error
    else {
        return Verdict::Failed;
    };
    if !rung.is_some_and(Rung::forces) || !REFUSING_STATUSES.contains(status) {
        return Verdict::Failed;
    }
    let (status, message) = (*status, message.clone());
    if names_tool_choice(&message) {
        Verdict::Refused { status, message }
    } else {
        Verdict::Unsure { status, message }
    }
}

/// Whether a provider's message is about the tool choice.
fn names_tool_choice(message: &str) -> bool {
    let message = message.to_lowercase();
    ["tool_choice", "tool choice", "tool-choice", "toolchoice"]
        .iter()
        .any(|name| message.contains(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, message: &str) -> ModelError {
        ModelError::Status {
            status,
            message: message.to_owned(),
            retry_after: None,
        }
    }

    #[test]
    fn only_an_error_to_a_forced_choice_can_be_a_refusal_and_only_a_named_one_is_sure() {
        let thinking = status(
            400,
            "Thinking may not be enabled when tool_choice forces tool use.",
        );
        assert_eq!(
            verdict(&thinking, Some(Rung::Named)),
            Verdict::Refused {
                status: 400,
                message: "Thinking may not be enabled when tool_choice forces tool use.".into()
            }
        );
        assert!(matches!(
            verdict(&status(500, "Internal Server Error"), Some(Rung::Required)),
            Verdict::Unsure { status: 500, .. }
        ));
        // Not forced: the server failed.
        assert_eq!(verdict(&thinking, Some(Rung::Unforced)), Verdict::Failed);
        assert_eq!(verdict(&thinking, Some(Rung::Auto)), Verdict::Failed);
        assert_eq!(verdict(&thinking, None), Verdict::Failed);
        // Statuses that say nothing about content.
        for code in [401, 403, 404, 429, 502, 503] {
            assert_eq!(
                verdict(&status(code, "tool_choice"), Some(Rung::Named)),
                Verdict::Failed
            );
        }
        assert_eq!(
            verdict(&ModelError::TimeLimit, Some(Rung::Named)),
            Verdict::Failed
        );
    }
}
