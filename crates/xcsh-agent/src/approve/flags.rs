//! A front end with nobody to ask (`xcsh run`, and `xcsh agent` without a
//! terminal): its answer comes from `--approve-all` or `--decline-all`,
//! or there is none and an `ask` apply is refused, in words that name the
//! front end that refused.

use xcsh_core::{Answer, ApprovalRequest, Approver};

/// The answer of a front end's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagAnswer {
    /// No flag: nobody to ask; the apply is refused with this reason
    /// ([`NO_PERSON_IN_RUN`], [`NO_PERSON_IN_AGENT`]).
    Nobody(&'static str),
    /// `--approve-all`.
    ApproveAll,
    /// `--decline-all`.
    DeclineAll,
}

/// Why an `ask` apply is refused under `xcsh run` without a flag.
pub const NO_PERSON_IN_RUN: &str = "xcsh run has no person to ask (start it with --approve-all or --decline-all to answer for one)";

/// Why an `ask` apply is refused under `xcsh agent` without a flag, when
/// its task came from standard input or standard input is no terminal.
pub const NO_PERSON_IN_AGENT: &str = "xcsh agent has no person to ask (the task came from standard input, or standard input is not a terminal; start it with --approve-all or --decline-all to answer for one)";

/// The reason a `--decline-all` decline gives the model and the reject.
pub const DECLINED_BY_FLAG: &str = "declined by --decline-all";

impl Approver for FlagAnswer {
    fn ask(&self, _request: &ApprovalRequest) -> Answer {
        match self {
            Self::Nobody(reason) => Answer::Unavailable((*reason).to_owned()),
            Self::ApproveAll => Answer::Approve,
            Self::DeclineAll => Answer::Decline {
                reason: Some(DECLINED_BY_FLAG.to_owned()),
            },
        }
    }

    fn decider(&self) -> String {
        match self {
            Self::Nobody(_) => "nobody",
            Self::ApproveAll => "--approve-all",
            Self::DeclineAll => "--decline-all",
        }
        .to_owned()
    }
}
