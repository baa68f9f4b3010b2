//! The tool-choice ladder: how hard the loop pushes the model toward
//! `resolve` while an action is pending.
//!
//! Rungs, top to bottom: [`Rung::Named`] (force `resolve` by name),
//! [`Rung::Required`] (offer only `resolve`, with `required`; Anthropic's
//! `any`), [`Rung::Auto`] (every tool, `auto`, and the reminder again).
//! The loop steps down one rung when the provider refuses a choice (an
//! HTTP error to a forced choice) or the model ignores it (an answer
//! without a `resolve` call); a refusal is remembered for the session, so
//! later actions start lower, an ignored choice only for the action at
//! hand. Each rung is tried at most once per pending action: below
//! [`Rung::Auto`] there is nothing left, and the loop ends.

use std::fmt;

use serde::Serialize;

/// How the loop steers toward `resolve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rung {
    /// `resolve` forced by name; every tool offered.
    Named,
    /// Only `resolve` offered, and a tool call required.
    Required,
    /// Every tool offered, `auto`, with the reminder sent again.
    Auto,
}

impl Rung {
    /// The rung below, if any.
    pub fn below(self) -> Option<Self> {
        match self {
            Self::Named => Some(Self::Required),
            Self::Required => Some(Self::Auto),
            Self::Auto => None,
        }
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Named => "named resolve",
            Self::Required => "required (resolve only)",
            Self::Auto => "auto with reminder",
        })
    }
}

/// Why the ladder stepped down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Cause {
    /// The provider answered the request with an HTTP error.
    Refused {
        /// The status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The model answered without calling `resolve`.
    Ignored,
}

/// One step down the ladder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The rung that failed.
    pub from: Rung,
    /// The rung tried next.
    pub to: Rung,
    /// What happened.
    pub cause: Cause,
    /// True when later actions start at `to` too (a refusal).
    pub remembered: bool,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.cause {
            Cause::Refused { status, .. } => write!(
                f,
                "tool choice {} refused by the provider (HTTP {status}); next: {} (remembered for this session)",
                self.from, self.to
            ),
            Cause::Ignored => write!(
                f,
                "tool choice {} ignored by the model (no resolve call); next: {}",
                self.from, self.to
            ),
        }
    }
}

/// The ladder's state for one session.
#[derive(Clone, Debug)]
pub struct Ladder {
    /// Where each new pending action starts: the highest rung the provider
    /// has not refused.
    start: Rung,
    /// The pending action being steered, and its current rung.
    current: Option<(u64, Rung)>,
}

impl Ladder {
    /// A ladder whose actions start at `start` ([`Rung::Required`] for a
    /// provider known not to force a named tool).
    pub fn new(start: Rung) -> Self {
        Self {
            start,
            current: None,
        }
    }

    /// The rung new actions start at (lowered by refusals).
    pub fn start(&self) -> Rung {
        self.start
    }

    /// The rung for the request about to be sent while action `top` is on
    /// top of the stack.
    pub fn rung(&mut self, top: u64) -> Rung {
        match self.current {
            Some((id, rung)) if id == top => rung,
            _ => {
                self.current = Some((top, self.start));
                self.start
            }
        }
    }

    /// The provider refused `rung`'s request for action `top`: the step
    /// down (remembered for the session), or `None` at the bottom.
    pub fn refused(&mut self, top: u64, rung: Rung, status: u16, message: String) -> Option<Step> {
        let to = rung.below()?;
        self.start = self.start.max(to);
        self.current = Some((top, to));
        Some(Step {
            from: rung,
            to,
            cause: Cause::Refused { status, message },
            remembered: true,
        })
    }

    /// The model answered `rung`'s request for action `top` without
    /// calling `resolve`: the step down for this action, or `None` when
    /// every rung was tried.
    pub fn ignored(&mut self, top: u64, rung: Rung) -> Option<Step> {
        let to = rung.below()?;
        self.current = Some((top, to));
        Some(Step {
            from: rung,
            to,
            cause: Cause::Ignored,
            remembered: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rung_is_tried_once_per_action_then_the_ladder_ends() {
        let mut ladder = Ladder::new(Rung::Named);
        assert_eq!(ladder.rung(1), Rung::Named);
        let step = ladder.ignored(1, Rung::Named).unwrap();
        assert_eq!(
            (step.from, step.to, step.remembered),
            (Rung::Named, Rung::Required, false)
        );
        assert_eq!(ladder.rung(1), Rung::Required);
        assert_eq!(ladder.ignored(1, Rung::Required).unwrap().to, Rung::Auto);
        assert_eq!(ladder.rung(1), Rung::Auto);
        assert_eq!(ladder.ignored(1, Rung::Auto), None);
        // Ignoring is not remembered: the next action starts at the top.
        assert_eq!(ladder.rung(2), Rung::Named);
    }

    #[test]
    fn a_refusal_is_remembered_for_later_actions() {
        let mut ladder = Ladder::new(Rung::Named);
        assert_eq!(ladder.rung(7), Rung::Named);
        let step = ladder
            .refused(7, Rung::Named, 400, "named tool_choice unsupported".into())
            .unwrap();
        assert!(step.remembered);
        assert_eq!(
            step.to_string(),
            "tool choice named resolve refused by the provider (HTTP 400); next: required (resolve only) (remembered for this session)"
        );
        assert_eq!(ladder.rung(7), Rung::Required);
        assert_eq!(ladder.rung(8), Rung::Required);
        assert_eq!(ladder.start(), Rung::Required);
        assert!(ladder.refused(8, Rung::Auto, 500, String::new()).is_none());
    }
}
