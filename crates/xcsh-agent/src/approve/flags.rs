//! `xcsh run` has nobody to ask: its answer comes from `--approve-all` or
//! `--decline-all`, or there is none and an `ask` apply is refused.

use xcsh_core::{Answer, ApprovalRequest, Approver};

/// The answer of a run's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagAnswer {
    /// No flag: nobody to ask.
    None,
    /// `--approve-all`.
    ApproveAll,
    /// `--decline-all`.
    DeclineAll,
}

/// Why an `ask` apply is refused under `xcsh run` without a flag.
pub const NO_PERSON_IN_RUN: &str = "xcsh run has no person to ask (start it with --approve-all or --decline-all to answer for one)";

/// The reason a `--decline-all` decline gives the model and the reject.
pub const DECLINED_BY_FLAG: &str = "declined by --decline-all";

impl Approver for FlagAnswer {
    fn ask(&self, _request: &ApprovalRequest) -> Answer {
        match self {
            Self::None => Answer::Unavailable(NO_PERSON_IN_RUN.to_owned()),
            Self::ApproveAll => Answer::Approve,
            Self::DeclineAll => Answer::Decline {
                reason: Some(DECLINED_BY_FLAG.to_owned()),
            },
        }
    }

    fn decider(&self) -> String {
        match self {
            Self::None => "nobody",
            Self::ApproveAll => "--approve-all",
            Self::DeclineAll => "--decline-all",
        }
        .to_owned()
    }
}
