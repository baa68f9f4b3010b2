//! Asking the client's user through MCP elicitation (the form request of
//! the 2025-11-25 revision) when an `apply` falls under the `ask` policy.
//!
//! The form shows the request (label, producing tool, the model's reason,
//! the preview) and asks for a `decision` (`apply` or `decline`) and an
//! optional `reason`. Accepting with `apply` applies; accepting with
//! `decline`, or declining the form, discards the action and tells the
//! model (with the reason, if one was written); cancelling leaves it
//! pending. A client that declared no elicitation support, a 2026-07-28
//! client (whose protocol has no server-to-client requests) and a failed
//! request all leave the action pending with an error result that says so.

use std::sync::{Mutex, MutexGuard};

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, Peer, RoleServer};
use serde_json::{Value, json};
use xcsh_core::{Answer, ApprovalRequest, Approver};

/// Why a client without elicitation cannot be asked (completes
/// "Apply needs a person's approval (…), but …").
pub const NO_ELICITATION: &str =
    "this MCP client cannot ask its user: it does not support elicitation (form mode)";

/// Why a 2026-07-28 client cannot be asked yet.
pub const NO_ELICITATION_2026: &str = "this MCP client cannot be asked: its protocol revision (2026-07-28) has no server-to-client requests, and xcsh does not send input-required results yet";

/// The form's choice field.
pub const DECISION: &str = "decision";
/// The form's optional reason field.
pub const REASON: &str = "reason";

/// Asks through the connection's client.
#[derive(Debug)]
pub struct ElicitingApprover {
    peer: Mutex<Option<Peer<RoleServer>>>,
    runtime: tokio::runtime::Handle,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The form the user fills in.
pub fn schema() -> ElicitationSchema {
    let schema = json!({
        "type": "object",
        "properties": {
            DECISION: {
                "type": "string",
                "title": "Apply these changes?",
                "enum": ["apply", "decline"],
            },
            REASON: {
                "type": "string",
                "title": "Reason (optional; the model is told when you decline)",
            },
        },
        "required": [DECISION],
    });
    let Value::Object(schema) = schema else {
        unreachable!("an object literal")
    };
    ElicitationSchema::from_json_schema(schema).expect("a flat object schema of primitives")
}

/// The answer an elicitation result gives.
pub fn answer(action: ElicitationAction, content: Option<&Value>) -> Answer {
    let reason = content
        .and_then(|c| c.get(REASON))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    match action {
        ElicitationAction::Accept => {
            match content
                .and_then(|c| c.get(DECISION))
                .and_then(Value::as_str)
            {
                Some("apply") => Answer::Approve,
                Some("decline") => Answer::Decline { reason },
                _ => Answer::Unavailable(
                    "the client's answer named no decision (apply or decline)".to_owned(),
                ),
            }
        }
        ElicitationAction::Decline => Answer::Decline { reason },
        // Cancel, and any action a later revision adds: no decision.
        _ => Answer::Cancel,
    }
}

impl ElicitingApprover {
    /// An approver for the connection served on `runtime`.
    pub fn new(runtime: tokio::runtime::Handle) -> Self {
        Self {
            peer: Mutex::new(None),
            runtime,
        }
    }

    /// Remembers the connection's peer (every request carries it).
    pub fn set_peer(&self, peer: &Peer<RoleServer>) {
        let mut slot = lock(&self.peer);
        if slot.is_none() {
            *slot = Some(peer.clone());
        }
    }
}

impl Approver for ElicitingApprover {
    fn ask(&self, request: &ApprovalRequest) -> Answer {
        let Some(peer) = lock(&self.peer).clone() else {
            return Answer::Unavailable(NO_ELICITATION.to_owned());
        };
        if peer.peer_info().is_none() {
            return Answer::Unavailable(NO_ELICITATION_2026.to_owned());
        }
        if !peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return Answer::Unavailable(NO_ELICITATION.to_owned());
        }
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: request.to_text(),
            requested_schema: schema(),
        };
        // `resolve` runs on a blocking thread of the runtime serving the
        // connection, which keeps reading the client's messages meanwhile.
        // No timeout: a person takes the time they need.
        let sent = self
            .runtime
            .block_on(peer.create_elicitation_with_timeout(params, None));
        match sent {
            Ok(result) => answer(result.action, result.content.as_ref()),
            Err(error) => Answer::Unavailable(format!("asking the MCP client failed ({error})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_asks_for_a_decision_and_an_optional_reason() {
        let wire = serde_json::to_value(schema()).unwrap();
        assert_eq!(wire["required"], json!([DECISION]));
        assert_eq!(
            wire["properties"][DECISION]["enum"],
            json!(["apply", "decline"])
        );
        assert_eq!(wire["properties"][REASON]["type"], "string");
    }

    #[test]
    fn results_map_to_answers() {
        let accept = |content: Value| answer(ElicitationAction::Accept, Some(&content));
        assert_eq!(accept(json!({"decision": "apply"})), Answer::Approve);
        assert_eq!(
            accept(json!({"decision": "decline", "reason": " keep it "})),
            Answer::Decline {
                reason: Some("keep it".to_owned())
            }
        );
        assert_eq!(
            accept(json!({"decision": "decline", "reason": ""})),
            Answer::Decline { reason: None }
        );
        assert!(matches!(accept(json!({})), Answer::Unavailable(_)));
        assert_eq!(
            answer(ElicitationAction::Decline, None),
            Answer::Decline { reason: None }
        );
        assert_eq!(answer(ElicitationAction::Cancel, None), Answer::Cancel);
    }
}
