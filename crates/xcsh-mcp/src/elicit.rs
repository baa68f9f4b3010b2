//! Asking the client's user through MCP elicitation (the form request of
//! the 2025-11-25 revision) when an `apply` falls under the `ask` policy.
//!
//! The form shows the request (label, producing tool, the model's reason,
//! the preview) and asks for a `decision` (`apply` or `decline`) and an
//! optional `reason`. Accepting with `apply` applies; accepting with
//! `decline`, or declining the form, discards the action and tells the
//! model (with the reason, if one was written); cancelling leaves it
//! pending. A client that declared no elicitation support and a failed
//! request leave the action pending with an error result that says so.
//!
//! A 2026-07-28 client has no server-to-client requests: it is asked the
//! same form through an input-required result ([`ModernCall`]). The
//! `resolve` call answers with the request and a request state naming the
//! pending action; the client asks its user and retries the call with the
//! answer and that state, which applies (or declines) exactly that action.
//!
//! When the connection ends (input closed, or the server stopped) the
//! question outstanding is cancelled at once ([`ElicitingApprover::close`]):
//! the client is sent `notifications/cancelled` for it and the action stays
//! pending for the session end to discard, so the record of it is written
//! before a client's close sequence would kill the server.
//!
//! When the client cancels the `resolve` call itself while its question is
//! open, the question is cancelled too (`notifications/cancelled`, reason
//! [`CANCELLED_WITH_CALL`]) and answered [`CALL_CANCELLED`]: an answer the
//! client sends after that applies nothing, and the action stays pending.

use std::sync::{Mutex, MutexGuard};

use std::time::{Duration, Instant};

use rmcp::model::{
    CancelledNotificationParam, ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult, InputResponses,
    ServerRequest,
};
use rmcp::service::{ElicitationMode, Peer, PeerRequestOptions, RoleServer};
use serde_json::{Value, json};
use tokio::sync::watch;
use xcsh_core::{Answer, ApprovalRequest, Approver};

use super::request_states::RequestStates;

/// Why a client without elicitation cannot be asked (completes
/// "Apply needs a person's approval (…), but …").
pub const NO_ELICITATION: &str =
    "this MCP client cannot ask its user: it does not support elicitation (form mode)";

/// Why a 2026-07-28 client that declared no elicitation support in its
/// request cannot be asked.
pub const NO_ELICITATION_2026: &str = "this MCP client cannot ask its user: its request declares no elicitation support (form mode) for an input-required result";

/// Why a question was not answered: the connection ended first.
pub const CLIENT_GONE: &str = "the MCP client went away before its user answered";

/// The `reason` of the `notifications/cancelled` for a question the
/// connection's end cut short.
pub const CANCELLED_AT_END: &str = "the xcsh session is ending";

/// Why a question was not answered: the client cancelled the call that
/// asked it.
pub const CALL_CANCELLED: &str =
    "the MCP client cancelled the resolve call before its user answered";

/// The `reason` of the `notifications/cancelled` for a question whose
/// `resolve` call the client cancelled.
pub const CANCELLED_WITH_CALL: &str = "the resolve call that asked it was cancelled";

/// How long the cancellation of a question may take to be written.
const CANCEL_SEND_TIMEOUT: Duration = Duration::from_millis(200);

/// The key of the approval question in an input-required result.
pub const INPUT_KEY: &str = "approval";

/// The answer on a retry named no action this server is waiting for an
/// answer about (see [`super::request_states`]).
pub const STATE_UNKNOWN: &str = "Refused: the request state names no approval this server is waiting for (it is unknown, forged, expired, already answered, or its action is no longer pending). Nothing was applied.";

/// The answer on a retry was about an action that is no longer the newest.
pub const STATE_STALE: &str = "Refused: the answer is about an action that is no longer the newest pending one. Nothing was applied; call resolve again to be asked about the newest.";

/// A retry carried a valid request state and an answer, but asks for
/// something else than the apply the person was asked about (the state
/// is forgotten all the same).
pub const STATE_OTHER_CALL: &str = "Refused: the request state answers a question about applying the newest pending action, but this retry asks to discard it. Nothing was applied or discarded; retry the call that was asked about, or call resolve again without the state.";

/// A retry carried the request state but no answer to the question.
pub const NO_ANSWER: &str = "the client's retry carried no answer to the question";

/// The prepared answer reached a question about another action (the
/// stack changed between the check and the call).
pub const ANSWER_FOR_ANOTHER: &str = "the answer the client sent was about another action";

/// The form's choice field.
pub const DECISION: &str = "decision";
/// The form's optional reason field.
pub const REASON: &str = "reason";

/// How a 2026-07-28 client's current call may ask: set by the server
/// before each of its calls, taken after it.
#[derive(Debug)]
pub struct ModernCall {
    /// The request declared elicitation support (form mode).
    pub can_ask: bool,
    /// The answer a retry carried, with the store id of the action it is
    /// about.
    pub answer: Option<(u64, Answer)>,
}

/// Asks through the connection's client.
#[derive(Debug)]
pub struct ElicitingApprover {
    peer: Mutex<Option<Peer<RoleServer>>>,
    runtime: tokio::runtime::Handle,
    /// Set during a 2026-07-28 client's call.
    modern: Mutex<Option<ModernCall>>,
    /// The question a 2026-07-28 call deferred.
    question: Mutex<Option<ApprovalRequest>>,
    /// Request states issued and not yet answered, with the store id of
    /// the action each names. Kept here: the client only echoes the key.
    issued: Mutex<RequestStates>,
    /// Flips when the connection ends; cuts the outstanding question short.
    closing: watch::Sender<bool>,
    /// The running call's request cancellation (calls run one at a time):
    /// cuts its question short.
    call: Mutex<Option<tokio_util::sync::CancellationToken>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Tells the client the question `id` is cancelled, and why; gives up
/// after [`CANCEL_SEND_TIMEOUT`].
async fn cancel_question(peer: &Peer<RoleServer>, id: rmcp::model::RequestId, why: &str) {
    let cancelled = CancelledNotificationParam::new(Some(id), Some(why.to_owned()));
    match tokio::time::timeout(CANCEL_SEND_TIMEOUT, peer.notify_cancelled(cancelled)).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::debug!(%error, "cannot cancel the question"),
        Err(_) => tracing::debug!("gave up cancelling the question after {CANCEL_SEND_TIMEOUT:?}"),
    }
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
            modern: Mutex::new(None),
            question: Mutex::new(None),
            issued: Mutex::new(RequestStates::default()),
            closing: watch::Sender::new(false),
            call: Mutex::new(None),
        }
    }

    /// Starts a call (of any client) whose request the client cancels
    /// through `cancelled`: a question it asks is cut short then.
    pub fn begin_call(&self, cancelled: tokio_util::sync::CancellationToken) {
        *lock(&self.call) = Some(cancelled);
    }

    /// Cancels the question outstanding, if any, and every later one: the
    /// connection is ending. Each is answered [`CLIENT_GONE`] at once, so
    /// its action stays pending for the session end to discard.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Puts `params` to the client's user; [`CLIENT_GONE`] as soon as
    /// [`close`](Self::close) is called, after telling the client the
    /// request is cancelled.
    async fn elicit(&self, peer: &Peer<RoleServer>, params: ElicitRequestParams) -> Answer {
        let mut closing = self.closing.subscribe();
        if *closing.borrow_and_update() {
            return Answer::Unavailable(CLIENT_GONE.to_owned());
        }
        let call = lock(&self.call).clone().unwrap_or_default();
        if call.is_cancelled() {
            return Answer::Unavailable(CALL_CANCELLED.to_owned());
        }
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        // No timeout: a person takes the time they need.
        let handle = match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(error) => {
                return Answer::Unavailable(format!("asking the MCP client failed ({error})"));
            }
        };
        let id = handle.id.clone();
        tokio::select! {
            // First, so an answer racing the end counts as cut short, as
            // the client was told.
            biased;
            _ = closing.wait_for(|closing| *closing) => {
                cancel_question(peer, id, CANCELLED_AT_END).await;
                Answer::Unavailable(CLIENT_GONE.to_owned())
            }
            // Before the response: a client that cancelled the call and
            // then answered has its answer ignored.
            () = call.cancelled() => {
                cancel_question(peer, id, CANCELLED_WITH_CALL).await;
                Answer::Unavailable(CALL_CANCELLED.to_owned())
            }
            response = handle.await_response() => match response {
                _ if call.is_cancelled() => Answer::Unavailable(CALL_CANCELLED.to_owned()),
                Ok(ClientResult::ElicitResult(result)) => answer(result.action, result.content.as_ref()),
                Ok(_) => Answer::Unavailable(
                    "asking the MCP client failed (it answered with something other than an elicitation result)".to_owned(),
                ),
                Err(error) => Answer::Unavailable(format!("asking the MCP client failed ({error})")),
            },
        }
    }

    /// Starts a 2026-07-28 client's call.
    pub fn begin_modern_call(&self, call: ModernCall) {
        *lock(&self.question) = None;
        *lock(&self.modern) = Some(call);
    }

    /// Ends a 2026-07-28 client's call: the input-required result to send
    /// instead of the call's result, if it deferred a question.
    pub fn end_modern_call(&self) -> Option<InputRequiredResult> {
        *lock(&self.modern) = None;
        let request = lock(&self.question).take()?;
        let state = lock(&self.issued).issue(request.entry_id, Instant::now());
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: request.to_text(),
            requested_schema: schema(),
        };
        let requests = [(
            INPUT_KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        )];
        Some(InputRequiredResult::new(
            Some(requests.into_iter().collect()),
            Some(state),
        ))
    }

    /// Checks a retry's request state and reads its answer: the action it
    /// is about (which must be `newest`, the newest pending action's id)
    /// and the person's answer. A state is answered once: it is forgotten
    /// whatever the outcome.
    ///
    /// # Errors
    ///
    /// [`STATE_UNKNOWN`] for a state this server did not issue (or no
    /// state), [`STATE_STALE`] when the action is no longer the newest.
    pub fn redeem(
        &self,
        state: Option<&str>,
        responses: Option<&InputResponses>,
        newest: Option<u64>,
    ) -> Result<(u64, Answer), &'static str> {
        let id = state
            .and_then(|state| lock(&self.issued).redeem(state, Instant::now()))
            .ok_or(STATE_UNKNOWN)?;
        if newest != Some(id) {
            return Err(STATE_STALE);
        }
        let answer = match responses.and_then(|r| r.get(INPUT_KEY)) {
            None => Answer::Unavailable(NO_ANSWER.to_owned()),
            Some(response) => match serde_json::from_value::<ElicitResult>(response.clone()) {
                Ok(result) => answer(result.action, result.content.as_ref()),
                Err(error) => Answer::Unavailable(format!(
                    "the client's answer is not an elicitation result ({error})"
                )),
            },
        };
        Ok((id, answer))
    }

    /// Forgets the request states whose action `pending` says left the
    /// stack: they can never be answered.
    pub fn forget_states_unless(&self, pending: impl FnMut(u64) -> bool) {
        lock(&self.issued).retain(pending);
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
        if let Some(call) = lock(&self.modern).as_mut() {
            return match call.answer.take() {
                Some((id, answer)) if id == request.entry_id => answer,
                Some(_) => Answer::Unavailable(ANSWER_FOR_ANOTHER.to_owned()),
                None if call.can_ask => {
                    *lock(&self.question) = Some(request.clone());
                    Answer::Deferred
                }
                None => Answer::Unavailable(NO_ELICITATION_2026.to_owned()),
            };
        }
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
        self.runtime.block_on(self.elicit(&peer, params))
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

    fn request(entry_id: u64) -> ApprovalRequest {
        ApprovalRequest {
            entry_id,
            label: "Rename".to_owned(),
            tool: "rename".to_owned(),
            source_tool_name: "rename".to_owned(),
            reason: "sure".to_owned(),
            preview: Some("a → b".to_owned()),
            details: None,
        }
    }

    /// Defers a question about `entry_id`; the request state it issued.
    fn issue(approver: &ElicitingApprover, entry_id: u64) -> String {
        approver.begin_modern_call(ModernCall {
            can_ask: true,
            answer: None,
        });
        assert_eq!(approver.ask(&request(entry_id)), Answer::Deferred);
        let result = approver
            .end_modern_call()
            .expect("an input-required result");
        let wire = serde_json::to_value(&result).unwrap();
        assert_eq!(wire["resultType"], "input_required");
        assert_eq!(
            wire["inputRequests"][INPUT_KEY]["method"],
            "elicitation/create"
        );
        assert_eq!(
            wire["inputRequests"][INPUT_KEY]["params"]["message"],
            request(entry_id).to_text()
        );
        result.request_state.expect("a request state")
    }

    fn responses(content: Value) -> InputResponses {
        [(INPUT_KEY.to_owned(), content)].into_iter().collect()
    }

    #[test]
    fn a_request_state_is_answered_once_and_only_for_the_newest_action() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let approver = ElicitingApprover::new(runtime.handle().clone());
        let accept = responses(json!({"action": "accept", "content": {"decision": "apply"}}));

        let state = issue(&approver, 7);
        assert_eq!(
            approver.redeem(Some("xcsh-approval-forged"), Some(&accept), Some(7)),
            Err(STATE_UNKNOWN)
        );
        assert_eq!(
            approver.redeem(None, Some(&accept), Some(7)),
            Err(STATE_UNKNOWN)
        );
        assert_eq!(
            approver.redeem(Some(&state), Some(&accept), Some(7)),
            Ok((7, Answer::Approve))
        );
        assert_eq!(
            approver.redeem(Some(&state), Some(&accept), Some(7)),
            Err(STATE_UNKNOWN)
        );

        let state = issue(&approver, 7);
        assert_eq!(
            approver.redeem(Some(&state), Some(&accept), Some(8)),
            Err(STATE_STALE)
        );
        let state = issue(&approver, 7);
        assert_eq!(
            approver.redeem(Some(&state), None, Some(7)),
            Ok((7, Answer::Unavailable(NO_ANSWER.to_owned())))
        );
        let state = issue(&approver, 7);
        assert!(matches!(
            approver.redeem(Some(&state), Some(&responses(json!("yes"))), Some(7)),
            Ok((7, Answer::Unavailable(_)))
        ));
    }

    #[test]
    fn a_retrys_answer_goes_only_to_the_action_it_is_about() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let approver = ElicitingApprover::new(runtime.handle().clone());
        approver.begin_modern_call(ModernCall {
            can_ask: true,
            answer: Some((7, Answer::Approve)),
        });
        assert_eq!(
            approver.ask(&request(8)),
            Answer::Unavailable(ANSWER_FOR_ANOTHER.to_owned())
        );
        assert!(approver.end_modern_call().is_none());
        approver.begin_modern_call(ModernCall {
            can_ask: false,
            answer: None,
        });
        assert_eq!(
            approver.ask(&request(8)),
            Answer::Unavailable(NO_ELICITATION_2026.to_owned())
        );
        assert!(approver.end_modern_call().is_none());
    }
}
