//! The tool-choice ladder: how hard the loop pushes the model toward
//! `resolve` while an action is pending.
//!
//! Rungs, top to bottom: [`Rung::Unforced`] (the tool choice left as it
//! was; the session's reminder does the asking), [`Rung::Named`] (force
//! `resolve` by name), [`Rung::Required`] (offer only `resolve`, with
//! `required`; Anthropic's `any`), [`Rung::Auto`] (every tool, `auto`,
//! and the reminder again). Where an action starts is the
//! [`FirstSteer`]: at [`Rung::Unforced`] ([`FirstSteer::Remind`]), or at
//! the highest forced rung the provider has not refused
//! ([`FirstSteer::Force`]).
//!
//! The loop steps down one rung when the model ignores a choice (an answer
//! without a `resolve` call), for the action at hand only; and when the
//! provider refuses a forced choice, remembered for the session, so later
//! actions start lower. A refusal is an error that names the tool choice,
//! or an error the same request does not meet once the forced choice is
//! taken away (see [`Proof`]); a server that fails at every choice has
//! failed, and the ladder does not move. Each rung is tried at most once
//! per pending action: below [`Rung::Auto`] there is nothing left, and the
//! loop ends.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// How the loop steers toward `resolve`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rung {
    /// The tool choice left as it was (normally `auto`), every tool
    /// offered: the reminder the session queued at the push asks for
    /// `resolve`. Only with [`FirstSteer::Remind`].
    Unforced,
    /// `resolve` forced by name; every tool offered.
    Named,
    /// Only `resolve` offered, and a tool call required.
    Required,
    /// Every tool offered, `auto`, with the reminder sent again.
    Auto,
}

impl Rung {
    /// The forced rung below, if any (the rung after [`Rung::Unforced`]
    /// is where forcing starts: see [`Ladder::below`]).
    pub fn below(self) -> Option<Self> {
        match self {
            Self::Unforced => Some(Self::Named),
            Self::Named => Some(Self::Required),
            Self::Required => Some(Self::Auto),
            Self::Auto => None,
        }
    }

    /// Whether the rung forces a tool call (`Named`, `Required`).
    pub fn forces(self) -> bool {
        matches!(self, Self::Named | Self::Required)
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Unforced => "unchanged with reminder",
            Self::Named => "named resolve",
            Self::Required => "required (resolve only)",
            Self::Auto => "auto with reminder",
        })
    }
}

/// Where each pending action's steering starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FirstSteer {
    /// The request after a preview keeps the tool choice it had, with the
    /// session's reminder; `resolve` is forced (for one request) only when
    /// the model does not call it. A changed tool choice invalidates a
    /// provider's prompt cache; this changes none when the model follows
    /// the reminder.
    Remind,
    /// The request after a preview forces `resolve` at once.
    #[default]
    Force,
}

impl FirstSteer {
    /// The name on the command line and in configs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Remind => "remind",
            Self::Force => "force",
        }
    }
}

impl fmt::Display for FirstSteer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FirstSteer {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "remind" => Ok(Self::Remind),
            "force" => Ok(Self::Force),
            other => Err(format!(
                "unknown first steer {other:?}: expected remind or force"
            )),
        }
    }
}

/// How a refusal of a tool choice was told from a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Proof {
    /// The provider's error names the tool choice.
    Named,
    /// The same request went through once the choice was taken away.
    AcceptedWithout,
}

/// Why the ladder stepped down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Cause {
    /// The provider refused the tool choice.
    Refused {
        /// The HTTP status of the refusal.
        status: u16,
        /// The provider's message.
        message: String,
        /// How it was known to be about the choice.
        proof: Proof,
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
            Cause::Refused { status, proof, .. } => write!(
                f,
                "tool choice {} refused by the provider (HTTP {status}, {}); next: {} (remembered for this session)",
                self.from,
                match proof {
                    Proof::Named => "its error names the tool choice",
                    Proof::AcceptedWithout => "the request went through without it",
                },
                self.to
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
    /// Where each new pending action starts.
    first: FirstSteer,
    /// The highest forced rung the provider has not refused.
    start: Rung,
    /// The pending action being steered, and its current rung.
    current: Option<(u64, Rung)>,
}

impl Ladder {
    /// A ladder whose actions start at `start` ([`Rung::Required`] for a
    /// provider known not to force a named tool), forcing at once
    /// ([`FirstSteer::Force`]).
    pub fn new(start: Rung) -> Self {
        Self {
            first: FirstSteer::Force,
            start: start.max(Rung::Named),
            current: None,
        }
    }

    /// This ladder, its actions' steering starting as `first` says.
    pub fn first_steer(mut self, first: FirstSteer) -> Self {
        self.first = first;
        self
    }

    /// The highest forced rung the provider has not refused (lowered by
    /// refusals).
    pub fn start(&self) -> Rung {
        self.start
    }

    /// The rung a new action starts at.
    fn first_rung(&self) -> Rung {
        match self.first {
            FirstSteer::Remind => Rung::Unforced,
            FirstSteer::Force => self.start,
        }
    }

    /// The rung after `rung`: forcing starts at [`Ladder::start`] after
    /// [`Rung::Unforced`]; `None` below [`Rung::Auto`].
    pub fn below(&self, rung: Rung) -> Option<Rung> {
        match rung {
            Rung::Unforced => Some(self.start),
            rung => rung.below(),
        }
    }

    /// The rung for the request about to be sent while action `top` is on
    /// top of the stack.
    pub fn rung(&mut self, top: u64) -> Rung {
        match self.current {
            Some((id, rung)) if id == top => rung,
            _ => {
                let rung = self.first_rung();
                self.current = Some((top, rung));
                rung
            }
        }
    }

    /// The provider refused forced `rung`'s request for action `top`, as
    /// `proof` shows: the step down (remembered for the session), or
    /// `None` at the bottom or for a rung that forces nothing.
    pub fn refused(
        &mut self,
        top: u64,
        rung: Rung,
        status: u16,
        message: String,
        proof: Proof,
    ) -> Option<Step> {
        if !rung.forces() {
            return None;
        }
        let to = rung.below()?;
        self.start = self.start.max(to);
        // A lower rung already reached for this action stays.
        let reached = match self.current {
            Some((id, current)) if id == top => to.max(current),
            _ => to,
        };
        self.current = Some((top, reached));
        Some(Step {
            from: rung,
            to,
            cause: Cause::Refused {
                status,
                message,
                proof,
            },
            remembered: true,
        })
    }

    /// The model answered `rung`'s request for action `top` without
    /// calling `resolve`: the step down for this action, or `None` when
    /// every rung was tried.
    pub fn ignored(&mut self, top: u64, rung: Rung) -> Option<Step> {
        let to = self.below(rung)?;
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
            .refused(
                7,
                Rung::Named,
                400,
                "named tool_choice unsupported".into(),
                Proof::Named,
            )
            .unwrap();
        assert!(step.remembered);
        assert_eq!(
            step.to_string(),
            "tool choice named resolve refused by the provider (HTTP 400, its error names the tool choice); next: required (resolve only) (remembered for this session)"
        );
        assert_eq!(ladder.rung(7), Rung::Required);
        assert_eq!(ladder.rung(8), Rung::Required);
        assert_eq!(ladder.start(), Rung::Required);
        assert!(
            ladder
                .refused(8, Rung::Auto, 500, String::new(), Proof::AcceptedWithout)
                .is_none()
        );
    }

    #[test]
    fn reminding_first_forces_once_ignored_and_comes_back_for_each_action() {
        let mut ladder = Ladder::new(Rung::Named).first_steer(FirstSteer::Remind);
        assert_eq!(ladder.rung(1), Rung::Unforced);
        let step = ladder.ignored(1, Rung::Unforced).unwrap();
        assert_eq!(
            step.to_string(),
            "tool choice unchanged with reminder ignored by the model (no resolve call); next: named resolve"
        );
        assert_eq!(ladder.rung(1), Rung::Named);
        // A refused forced rung lowers where forcing starts, never the
        // unforced first rung.
        ladder
            .refused(1, Rung::Named, 400, "tool_choice".into(), Proof::Named)
            .unwrap();
        assert_eq!(ladder.rung(2), Rung::Unforced);
        assert_eq!(
            ladder.ignored(2, Rung::Unforced).unwrap().to,
            Rung::Required
        );
        // The unforced rung is never a refusal.
        assert!(
            ladder
                .refused(3, Rung::Unforced, 500, String::new(), Proof::Named)
                .is_none()
        );
    }

    #[test]
    fn first_steers_parse_from_their_names() {
        assert_eq!("remind".parse(), Ok(FirstSteer::Remind));
        assert_eq!("force".parse(), Ok(FirstSteer::Force));
        assert_eq!(
            "sometimes".parse::<FirstSteer>(),
            Err("unknown first steer \"sometimes\": expected remind or force".to_owned())
        );
    }
}
