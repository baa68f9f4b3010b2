//! Who may apply a pending action: the model, a person, or nobody.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The approval policy of a tool's pending actions, from the loosest to
/// the strictest (the derived order: a project config may only move a
/// policy up it).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// The model's `apply` runs (the default).
    #[default]
    Model,
    /// The model's `apply` is put to a person first.
    Ask,
    /// `apply` is refused; only `discard` works.
    Deny,
}

impl Policy {
    /// The policy's name as configs and flags spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Model => "model",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }

    /// The stricter of two policies.
    pub fn stricter(self, other: Self) -> Self {
        self.max(other)
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that is not a policy.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown approval policy {0:?} (expected model, ask or deny)")]
pub struct UnknownPolicy(pub String);

impl FromStr for Policy {
    type Err = UnknownPolicy;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "model" => Ok(Self::Model),
            "ask" => Ok(Self::Ask),
            "deny" => Ok(Self::Deny),
            other => Err(UnknownPolicy(other.to_owned())),
        }
    }
}

/// Decides the policy of a tool by its name.
pub type PolicyFn = dyn Fn(&str) -> Policy + Send + Sync;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_order_from_loosest_to_strictest() {
        assert_eq!(Policy::Model.stricter(Policy::Ask), Policy::Ask);
        assert_eq!(Policy::Deny.stricter(Policy::Ask), Policy::Deny);
        assert_eq!(Policy::Ask.stricter(Policy::Model), Policy::Ask);
    }

    #[test]
    fn policies_parse_and_print_their_names() {
        for policy in [Policy::Model, Policy::Ask, Policy::Deny] {
            assert_eq!(policy.as_str().parse::<Policy>().unwrap(), policy);
        }
        assert_eq!(
            "always".parse::<Policy>().unwrap_err().to_string(),
            "unknown approval policy \"always\" (expected model, ask or deny)"
        );
    }
}
