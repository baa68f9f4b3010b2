//! Server-sent events (`text/event-stream`): a streamed answer read event
//! by event, within the answer's byte limit and the request's waits.

use std::io::{BufRead, BufReader, Read as _};

use ureq::Body;
use ureq::http::Response;
use xcsh_core::CancellationToken;

use crate::ModelError;
use crate::http::Waits;

/// How a stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The reader of the events said the answer is complete.
    Complete,
    /// The connection closed first, after this many events.
    Closed {
        /// Events read before it closed.
        events: usize,
    },
}

/// Calls `on_event(event_type, data)` for each event of the answer (the
/// `event:` and `data:` fields, events ended by a blank line), until the
/// stream ends or `on_event` returns `false` (the answer is complete).
/// Checks `cancel` between lines; reads at most `waits.answer_bytes`.
pub(crate) fn read_events(
    response: Response<Body>,
    waits: &Waits,
    url: &str,
    cancel: &CancellationToken,
    mut on_event: impl FnMut(Option<&str>, &str) -> Result<bool, ModelError>,
) -> Result<Ended, ModelError> {
    let reader = response
        .into_body()
        .into_with_config()
        .limit(waits.answer_bytes)
        .reader();
    let mut lines = BufReader::new(reader);
    let mut event: Option<String> = None;
    let mut data = String::new();
    let mut line = String::new();
    let mut events = 0;
    loop {
        if cancel.is_cancelled() {
            return Err(ModelError::Interrupted);
        }
        line.clear();
        // A line is never longer than the answer may be (the reader's own
        // limit ends it there).
        let read = (&mut lines)
            .take(waits.answer_bytes.saturating_add(1))
            .read_line(&mut line)
            .map_err(|error| waits.read_error(error, url))?;
        let end = read == 0;
        let field = line.trim_end_matches(['\r', '\n']);
        if field.is_empty() {
            if !data.is_empty() {
                events += 1;
                if !on_event(event.as_deref(), &data)? {
                    return Ok(Ended::Complete);
                }
            }
            event = None;
            data.clear();
            if end {
                return Ok(Ended::Closed { events });
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

/// The error for a stream that closed before its end marker `marker`.
pub(crate) fn cut_short(ended: Ended, marker: &str) -> ModelError {
    match ended {
        Ended::Closed { events: 0 } => ModelError::Incomplete(format!(
            "the stream ended before any event (no {marker}); if this server cannot stream this request, try --no-stream"
        )),
        Ended::Closed { events } => ModelError::Incomplete(format!(
            "the stream ended after {events} event{} without {marker}",
            if events == 1 { "" } else { "s" }
        )),
        Ended::Complete => ModelError::Incomplete(format!("the stream has no {marker}")),
    }
}
