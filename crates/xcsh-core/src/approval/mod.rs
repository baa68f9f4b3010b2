//! People in the loop: which `apply`s a person decides ([`Policy`]), how a
//! front end asks them ([`Approver`], [`ApprovalRequest`], [`Answer`]), and
//! what the session reports for its journal ([`Journal`], [`JournalEntry`]).
//!
//! The session keeps, for each pending action it saw pushed, the tool whose
//! call pushed it and the text that call returned (its preview), so that a
//! person is shown what will change, not only a label.

mod journal;
mod policy;
mod request;
mod state;

pub use journal::{Journal, JournalEntry, JournalEvent};
pub use policy::{Policy, PolicyFn, UnknownPolicy};
pub use request::{Answer, ApprovalRequest, Approver};
pub(crate) use state::{Approvals, Origin};

#[cfg(test)]
mod tests;
