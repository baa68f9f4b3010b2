//! The HTTP client under both providers (ureq, blocking).

use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde_json::Value;
use ureq::Body;
use ureq::http::Response;
use xcsh_core::CancellationToken;

use crate::ModelError;

/// The most of an error body read, and the most of it kept in a message.
const ERROR_BODY_BYTES: u64 = 64 * 1024;
const ERROR_MESSAGE_CHARS: usize = 300;

/// The most bytes of one answer read (a whole non-streamed body, or one
/// streamed event).
const ANSWER_BYTES: u64 = 32 * 1024 * 1024;

/// A blocking HTTP client that hands error statuses back with their body.
#[derive(Debug)]
pub(crate) struct Http {
    agent: ureq::Agent,
}

impl Http {
    /// A client whose requests give up after `timeout`.
    pub(crate) fn new(timeout: Option<Duration>) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(timeout)
            .build()
            .into();
        Self { agent }
    }

    /// POSTs `body` as JSON to `url` with `headers`; an error status is
    /// [`ModelError::Status`] with the provider's message.
    pub(crate) fn post(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &Value,
    ) -> Result<Response<Body>, ModelError> {
        let mut request = self.agent.post(url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut response = request
            .send_json(body)
            .map_err(|source| ModelError::Transport {
                url: url.to_owned(),
                source,
            })?;
        let status = response.status().as_u16();
        if status >= 400 {
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
            });
        }
        Ok(response)
    }
}

/// Reads a whole JSON answer.
pub(crate) fn read_json(response: Response<Body>, url: &str) -> Result<Value, ModelError> {
    response
        .into_body()
        .with_config()
        .limit(ANSWER_BYTES)
        .read_json()
        .map_err(|source| match source {
            ureq::Error::Json(error) => ModelError::Decode(error.to_string()),
            source => ModelError::Transport {
                url: url.to_owned(),
                source,
            },
        })
}

/// Calls `on_event(event_type, data)` for each server-sent event of the
/// answer (the `text/event-stream` framing: `event:` and `data:` fields,
/// events ended by a blank line), until the stream ends or `on_event`
/// returns `false`. Checks `cancel` between lines.
pub(crate) fn read_events(
    response: Response<Body>,
    cancel: &CancellationToken,
    mut on_event: impl FnMut(Option<&str>, &str) -> Result<bool, ModelError>,
) -> Result<(), ModelError> {
    let reader = response.into_body().into_reader();
    let mut lines = BufReader::new(reader);
    let mut event: Option<String> = None;
    let mut data = String::new();
    let mut line = String::new();
    loop {
        if cancel.is_cancelled() {
            return Err(ModelError::Interrupted);
        }
        line.clear();
        let read = (&mut lines)
            .take(ANSWER_BYTES)
            .read_line(&mut line)
            .map_err(|error| ModelError::Decode(format!("cannot read the stream: {error}")))?;
        let end = read == 0;
        let field = line.trim_end_matches(['\r', '\n']);
        if field.is_empty() {
            if !data.is_empty() && !on_event(event.as_deref(), &data)? {
                return Ok(());
            }
            event = None;
            data.clear();
            if end {
                return Ok(());
            }
            continue;
        }
        let (name, value) = field.split_once(':').unwrap_or((field, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match name {
            "event" => event = Some(value.to_owned()),
            "data" => {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            // Comments (`: keep-alive`), `id` and `retry` say nothing here.
            _ => {}
        }
    }
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
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(ERROR_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None if line.is_empty() => "(no message)".to_owned(),
        None => line,
    }
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
}
