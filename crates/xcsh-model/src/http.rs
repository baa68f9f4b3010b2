//! The HTTP client under both providers (ureq, blocking), with every wait
//! bounded and Ctrl-C heard during any of them.
//!
//! ureq's own timeouts bound each phase of a request: the connection
//! ([`AnswerLimits::connect_time`]), each read, headers and body chunks
//! alike ([`AnswerLimits::read_time`]), and the whole request, body
//! included ([`AnswerLimits::request_time`], shortened to what is left of
//! the loop's time limit). A blocked read cannot see a cancellation token,
//! so a watcher thread looks at it while a request is out and, once it is
//! cancelled, shuts the client down ([`ureq::Agent::shutdown`]), which
//! makes the blocked read return at once; the next request gets a new
//! client.

use std::io::Read as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use ureq::Body;
use ureq::http::Response;
use xcsh_core::CancellationToken;
use xcsh_core::sync::lock;

use crate::limits::seconds;
use crate::{AnswerLimits, ModelError};

/// The most of an error body read, and the most of it kept in a message.
const ERROR_BODY_BYTES: u64 = 64 * 1024;
const ERROR_MESSAGE_CHARS: usize = 300;

/// How often the watcher looks at the cancellation token.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// The longest `Retry-After` kept (longer ones are clamped; the loop's
/// deadline decides whether a retry fits at all).
const RETRY_AFTER_MAX: Duration = Duration::from_secs(300);

/// A blocking HTTP client that hands error statuses back with their body.
#[derive(Debug)]
pub(crate) struct Http {
    agent: Mutex<ureq::Agent>,
    limits: AnswerLimits,
}

/// One request: where, with what, until when.
pub(crate) struct Exchange<'a> {
    /// Where it goes.
    pub(crate) url: &'a str,
    /// Extra headers (the JSON content type is always sent).
    pub(crate) headers: &'a [(&'a str, &'a str)],
    /// The JSON body, serialised.
    pub(crate) body: &'a [u8],
    /// When the loop's time limit passes.
    pub(crate) deadline: Option<Instant>,
    /// Ctrl-C.
    pub(crate) cancel: &'a CancellationToken,
}

/// The waits one request runs under, and which limit set each; turns the
/// HTTP client's timeouts into one-line errors naming the limit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waits {
    /// The whole request's budget.
    total: Option<Duration>,
    /// True when that budget is what is left of the loop's time limit
    /// (shorter than the request's own limit).
    total_is_time_limit: bool,
    read: Option<Duration>,
    connect: Duration,
    /// The most bytes of the answer.
    pub(crate) answer_bytes: u64,
    /// The most bytes of one call's arguments.
    pub(crate) argument_bytes: u64,
}

impl Waits {
    fn new(limits: &AnswerLimits, deadline: Option<Instant>, now: Instant) -> Self {
        let left = deadline.map(|deadline| deadline.saturating_duration_since(now));
        let (total, total_is_time_limit) = match (limits.request_time, left) {
            (Some(own), Some(left)) if left < own => (Some(left), true),
            (Some(own), _) => (Some(own), false),
            (None, left) => (left, left.is_some()),
        };
        let shorter = |limit: Duration| total.map_or(limit, |total| limit.min(total));
        Self {
            total,
            total_is_time_limit,
            read: limits.read_time.map(shorter),
            connect: shorter(limits.connect_time),
            answer_bytes: limits.bytes,
            argument_bytes: limits.argument_bytes,
        }
    }

    /// The error for a failure of the HTTP client while talking to `url`.
    pub(crate) fn error(&self, error: ureq::Error, url: &str) -> ModelError {
        match error {
            ureq::Error::Timeout(kind) => self.timeout(kind),
            ureq::Error::BodyExceedsLimit(limit) => ModelError::TooLarge {
                what: "the answer".to_owned(),
                limit,
                flag: "--max-answer-bytes",
            },
            ureq::Error::Json(error) if error.is_eof() => {
                ModelError::Incomplete(format!("the body ends in the middle of its JSON ({error})"))
            }
            ureq::Error::Json(error) => ModelError::Decode(error.to_string()),
            source => ModelError::Transport {
                url: url.to_owned(),
                source,
            },
        }
    }

    /// The error for a failure while reading an answer that began: a cut
    /// connection makes it incomplete.
    pub(crate) fn read_error(&self, error: std::io::Error, url: &str) -> ModelError {
        match ureq::Error::from(error) {
            ureq::Error::Io(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::UnexpectedEof
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::BrokenPipe
                ) =>
            {
                ModelError::Incomplete(format!("the connection broke off in the middle ({error})"))
            }
            ureq::Error::Io(error) if error.kind() == std::io::ErrorKind::InvalidData => {
                ModelError::Decode(format!("the answer is not UTF-8 text ({error})"))
            }
            other => self.error(other, url),
        }
    }

    fn timeout(&self, kind: ureq::Timeout) -> ModelError {
        let total = |waits: &Self| {
            if waits.total_is_time_limit {
                ModelError::TimeLimit
            } else {
                ModelError::Timeout(format!(
                    "no complete answer within {} (--request-timeout)",
                    seconds(waits.total.unwrap_or_default())
                ))
            }
        };
        match kind {
            ureq::Timeout::PerRead if self.read < self.total || self.total.is_none() => {
                ModelError::Timeout(format!(
                    "the model server sent nothing for {} (--read-timeout)",
                    seconds(self.read.unwrap_or_default())
                ))
            }
            ureq::Timeout::Connect | ureq::Timeout::Resolve
                if self.connect < self.total_or_max() =>
            {
                ModelError::Timeout(format!(
                    "cannot connect to the model server within {}",
                    seconds(self.connect)
                ))
            }
            _ => total(self),
        }
    }

    fn total_or_max(&self) -> Duration {
        self.total.unwrap_or(Duration::MAX)
    }
}

impl Http {
    /// A client whose requests keep to `limits`.
    pub(crate) fn new(limits: AnswerLimits) -> Self {
        Self {
            agent: Mutex::new(client()),
            limits,
        }
    }

    /// POSTs the exchange's body as JSON and reads the answer with `read`,
    /// within the limits and the deadline; an error status is
    /// [`ModelError::Status`] with the provider's message, Ctrl-C
    /// [`ModelError::Interrupted`], the time limit
    /// [`ModelError::TimeLimit`].
    pub(crate) fn exchange<T>(
        &self,
        exchange: &Exchange<'_>,
        read: impl FnOnce(Response<Body>, &Waits) -> Result<T, ModelError>,
    ) -> Result<T, ModelError> {
        let waits = Waits::new(&self.limits, exchange.deadline, Instant::now());
        if exchange.cancel.is_cancelled() {
            return Err(ModelError::Interrupted);
        }
        if waits.total == Some(Duration::ZERO) {
            return Err(waits.timeout(ureq::Timeout::Global));
        }
        let agent = lock(&self.agent).clone();
        let done = AtomicBool::new(false);
        let result = std::thread::scope(|scope| {
            let watcher = scope.spawn(|| {
                while !done.load(Ordering::Acquire) {
                    if exchange.cancel.is_cancelled() {
                        // Every connection of this client closes, the
                        // blocked read with them; later requests get a
                        // new client.
                        *lock(&self.agent) = client();
                        agent.clone().shutdown();
                        return;
                    }
                    std::thread::park_timeout(CANCEL_POLL);
                }
            });
            let result = send(&agent, exchange, &waits).and_then(|response| read(response, &waits));
            done.store(true, Ordering::Release);
            watcher.thread().unpark();
            result
        });
        if exchange.cancel.is_cancelled() {
            return Err(ModelError::Interrupted);
        }
        result
    }
}

/// A new client: error statuses come back as responses.
fn client() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// Sends the request; an error status is read into [`ModelError::Status`].
fn send(
    agent: &ureq::Agent,
    exchange: &Exchange<'_>,
    waits: &Waits,
) -> Result<Response<Body>, ModelError> {
    let mut request = agent
        .post(exchange.url)
        .config()
        .timeout_global(waits.total)
        .timeout_connect(Some(waits.connect))
        .timeout_per_read(waits.read)
        .build()
        .header("content-type", "application/json");
    for (name, value) in exchange.headers {
        request = request.header(*name, *value);
    }
    let mut response = request
        .send(exchange.body)
        .map_err(|error| waits.error(error, exchange.url))?;
    let status = response.status().as_u16();
    if status >= 400 {
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(|seconds| Duration::from_secs(seconds).min(RETRY_AFTER_MAX));
        let text = response
            .body_mut()
            .with_config()
            .limit(ERROR_BODY_BYTES)
            .lossy_utf8(true)
            .read_to_string()
            .unwrap_or_default();
        return Err(ModelError::Status {
            status,
            message: error_message(&text),
            retry_after,
        });
    }
    Ok(response)
}

/// Reads a whole JSON answer: at most `waits.answer_bytes`, and an empty
/// or cut body is incomplete.
pub(crate) fn read_json(
    response: Response<Body>,
    waits: &Waits,
    url: &str,
) -> Result<Value, ModelError> {
    let mut bytes = Vec::new();
    response
        .into_body()
        .into_with_config()
        .limit(waits.answer_bytes)
        .reader()
        .read_to_end(&mut bytes)
        .map_err(|error| waits.read_error(error, url))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ModelError::Incomplete("the body is empty".to_owned()));
    }
    serde_json::from_slice(&bytes).map_err(|error| {
        if error.is_eof() {
            ModelError::Incomplete(format!("the body ends in the middle of its JSON ({error})"))
        } else {
            ModelError::Decode(error.to_string())
        }
    })
}

/// The provider's error message from an error body: `error.message`,
/// `error` or `detail` of a JSON body, else the text; one line, cut short.
pub(crate) fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|value| {
        let error = value.get("error").or_else(|| value.get("detail"))?;
        match error {
            Value::String(text) => Some(text.clone()),
            Value::Object(object) => object
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| Some(error.to_string())),
            other => Some(other.to_string()),
        }
    });
    let text = from_json.unwrap_or_else(|| body.to_owned());
    crate::text::one_line_cut(&text, ERROR_MESSAGE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_come_from_the_usual_json_fields_on_one_line() {
        assert_eq!(
            error_message(r#"{"error": {"message": "tool_choice\n'required' is not supported"}}"#),
            "tool_choice 'required' is not supported"
        );
        assert_eq!(error_message(r#"{"detail": "bad"}"#), "bad");
        assert_eq!(
            error_message("Internal Server Error\n"),
            "Internal Server Error"
        );
        assert_eq!(error_message(""), "(no message)");
        assert!(error_message(&"x".repeat(1000)).ends_with('…'));
    }

    #[test]
    fn the_time_limit_shortens_every_wait_and_is_named_when_it_binds() {
        let limits = AnswerLimits::default();
        let now = Instant::now();
        let waits = Waits::new(&limits, Some(now + Duration::from_secs(8)), now);
        assert_eq!(waits.total, Some(Duration::from_secs(8)));
        assert_eq!(waits.read, Some(Duration::from_secs(8)));
        assert_eq!(waits.connect, Duration::from_secs(8));
        assert!(matches!(
            waits.timeout(ureq::Timeout::PerRead),
            ModelError::TimeLimit
        ));
        assert!(matches!(
            waits.timeout(ureq::Timeout::Global),
            ModelError::TimeLimit
        ));
        let waits = Waits::new(
            &AnswerLimits {
                read_time: Some(Duration::from_secs(2)),
                request_time: Some(Duration::from_millis(5500)),
                ..limits
            },
            None,
            now,
        );
        assert_eq!(
            waits.timeout(ureq::Timeout::PerRead).to_string(),
            "the model server sent nothing for 2 s (--read-timeout)"
        );
        assert_eq!(
            waits.timeout(ureq::Timeout::Global).to_string(),
            "no complete answer within 5.5 s (--request-timeout)"
        );
        assert_eq!(
            waits.timeout(ureq::Timeout::Connect).to_string(),
            "no complete answer within 5.5 s (--request-timeout)"
        );
        let waits = Waits::new(&limits, None, now);
        assert_eq!(
            waits.timeout(ureq::Timeout::Connect).to_string(),
            "cannot connect to the model server within 30 s"
        );
    }
}
