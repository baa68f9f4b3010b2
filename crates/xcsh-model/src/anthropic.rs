//! Anthropic Messages (`POST {base}/v1/messages`).
//!
//! Tool results go back as `tool_result` blocks of a user message, the
//! session's reminders as text blocks after them in the same message
//! (consecutive messages of one role are merged, as the API requires
//! turns to alternate). `required` is spelt `any`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use xcsh_core::{CancellationToken, ToolCall, ToolChoice};

use crate::api_key::ApiKey;
use crate::http::{Exchange, Http, read_json};
use crate::openai::check_arguments;
use crate::sse::{Ended, cut_short, read_events};
use crate::{Message, ModelError, ModelSettings, Provider, Reply, Request, Usage};

/// The API version every request names.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// A Messages endpoint.
#[derive(Debug)]
pub(crate) struct Anthropic {
    http: Http,
    url: String,
    model: String,
    key: Option<ApiKey>,
    stream: bool,
}

impl Anthropic {
    pub(crate) fn new(http: Http, settings: &ModelSettings, key: Option<ApiKey>) -> Self {
        Self {
            http,
            url: format!("{}/v1/messages", settings.base_url.trim_end_matches('/')),
            model: settings.model.clone(),
            key,
            stream: settings.stream,
        }
    }
}

impl Provider for Anthropic {
    fn api(&self) -> &'static str {
        "anthropic"
    }

    fn complete(
        &self,
        request: &Request<'_>,
        cancel: &CancellationToken,
    ) -> Result<Reply, ModelError> {
        let body = request_body(&self.model, request, self.stream).to_string();
        let mut headers = vec![("anthropic-version", ANTHROPIC_VERSION)];
        if let Some(key) = &self.key {
            headers.push(("x-api-key", key.0.as_str()));
        }
        let exchange = Exchange {
            url: &self.url,
            headers: &headers,
            body: body.as_bytes(),
            deadline: request.deadline,
            cancel,
        };
        let reply = self.http.exchange(&exchange, |response, waits| {
            if !self.stream {
                return parse_reply(
                    &read_json(response, waits, &self.url)?,
                    waits.argument_bytes,
                );
            }
            let mut reply = StreamedReply::new(waits.argument_bytes);
            let ended = read_events(response, waits, &self.url, cancel, |_, data| {
                let event: Value = serde_json::from_str(data)
                    .map_err(|error| ModelError::Decode(format!("a stream event: {error}")))?;
                reply.add(&event)
            })?;
            if ended != Ended::Complete {
                return Err(cut_short(ended, "message_stop"));
            }
            reply.finish()
        })?;
        Ok(reply.counted(body.len()))
    }
}

/// The request's JSON body.
pub(crate) fn request_body(model: &str, request: &Request<'_>, stream: bool) -> Value {
    let mut messages: Vec<(&str, Vec<Value>)> = Vec::new();
    for message in &request.conversation.messages {
        let (role, block) = match message {
            Message::User(text) => ("user", json!({"type": "text", "text": text})),
            Message::Assistant { text, calls } => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                blocks.extend(calls.iter().map(|call| {
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
                }));
                if blocks.is_empty() {
                    blocks.push(json!({"type": "text", "text": "(no answer)"}));
                }
                push_blocks(&mut messages, "assistant", blocks);
                continue;
            }
            Message::ToolResult {
                call_id,
                text,
                is_error,
                ..
            } => (
                "user",
                json!({"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": is_error}),
            ),
        };
        push_blocks(&mut messages, role, vec![block]);
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(request.max_tokens));
    if let Some(system) = &request.conversation.system {
        body.insert("system".into(), json!(system));
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({"name": tool.name, "description": tool.description, "input_schema": tool.parameters})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), tool_choice(request.choice));
    }
    if stream {
        body.insert("stream".into(), json!(true));
    }
    Value::Object(body)
}

/// Appends `blocks` to the last message if it has `role`, else starts one.
fn push_blocks<'a>(messages: &mut Vec<(&'a str, Vec<Value>)>, role: &'a str, blocks: Vec<Value>) {
    match messages.last_mut() {
        Some((last, content)) if *last == role => content.extend(blocks),
        _ => messages.push((role, blocks)),
    }
}

/// `{"type": "auto" | "any" | "none"}` or `{"type": "tool", "name": …}`.
pub(crate) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Tool { name } => json!({"type": "tool", "name": name}),
    }
}

/// A whole (non-streamed) message, whose calls' input is at most
/// `argument_bytes` each.
pub(crate) fn parse_reply(body: &Value, argument_bytes: u64) -> Result<Reply, ModelError> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::Decode("no content list".to_owned()))?;
    let mut reply = Reply::default();
    for (index, block) in content.iter().enumerate() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                reply.text.push_str(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                );
            }
            Some("tool_use") => {
                let input = block
                    .get("input")
                    .map_or(0, |input| input.to_string().len());
                check_arguments(reply.calls.len(), input, argument_bytes)?;
                reply.calls.push(tool_use(block, index)?);
            }
            // Thinking and other blocks are not for the session.
            _ => {}
        }
    }
    reply.usage = usage(body.get("usage"), Usage::default());
    Ok(reply)
}

fn tool_use(block: &Value, index: usize) -> Result<ToolCall, ModelError> {
    let name = block
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ModelError::Decode(format!("tool_use block {index} has no name")))?;
    let id = block
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("toolu_{index}"), str::to_owned);
    let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
    Ok(ToolCall::new(id, name, input))
}

fn usage(usage: Option<&Value>, base: Usage) -> Usage {
    let field = |name: &str| {
        usage
            .and_then(|usage| usage.get(name))
            .and_then(Value::as_u64)
    };
    Usage {
        input: field("input_tokens").unwrap_or(base.input),
        output: field("output_tokens").unwrap_or(base.output),
        estimated: false,
    }
}

/// A streamed message, put together event by event.
#[derive(Debug, Default)]
struct StreamedReply {
    text: String,
    /// Tool-use blocks by index: the block as it started, and its input's
    /// JSON text as it arrives.
    tools: BTreeMap<u64, (Value, String)>,
    usage: Usage,
    stopped: bool,
    /// The most bytes of one call's input.
    argument_bytes: u64,
}

impl StreamedReply {
    fn new(argument_bytes: u64) -> Self {
        Self {
            argument_bytes,
            ..Self::default()
        }
    }

    /// Takes one event; `false` once the message is complete.
    fn add(&mut self, event: &Value) -> Result<bool, ModelError> {
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                self.usage = usage(event.pointer("/message/usage"), self.usage);
            }
            Some("content_block_start") => {
                let block = event.get("content_block").cloned().unwrap_or(Value::Null);
                match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") => {
                        self.tools.insert(index, (block, String::new()));
                    }
                    Some("text") => {
                        if let Some(text) = block.get("text").and_then(Value::as_str) {
                            self.text.push_str(text);
                        }
                    }
                    _ => {}
                }
            }
            Some("content_block_delta") => {
                let delta = event.get("delta").cloned().unwrap_or(Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        self.text.push_str(
                            delta
                                .get("text")
                                .and_then(Value::as_str)
                                .unwrap_or_default(),
                        );
                    }
                    Some("input_json_delta") => {
                        let place = self.tools.range(..index).count();
                        if let Some((_, json)) = self.tools.get_mut(&index) {
                            let piece = delta
                                .get("partial_json")
                                .and_then(Value::as_str)
                                .unwrap_or_default();
                            check_arguments(place, json.len() + piece.len(), self.argument_bytes)?;
                            json.push_str(piece);
                        }
                    }
                    _ => {}
                }
            }
            Some("message_delta") => self.usage = usage(event.get("usage"), self.usage),
            Some("message_stop") => {
                self.stopped = true;
                return Ok(false);
            }
            Some("error") => {
                let message = event
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("an error event");
                return Err(ModelError::Decode(format!("the stream failed: {message}")));
            }
            _ => {}
        }
        Ok(true)
    }

    fn finish(self) -> Result<Reply, ModelError> {
        if !self.stopped {
            return Err(ModelError::Incomplete(
                "the stream ended before message_stop".to_owned(),
            ));
        }
        let mut calls = Vec::new();
        for (index, (mut block, json)) in self.tools {
            if !json.trim().is_empty() {
                let input: Value = serde_json::from_str(&json).map_err(|error| {
                    ModelError::Decode(format!("tool_use block {index}'s input: {error}"))
                })?;
                block["input"] = input;
            }
            calls.push(tool_use(&block, index as usize)?);
        }
        Ok(Reply {
            text: self.text,
            calls,
            usage: self.usage,
        })
    }
}

#[cfg(test)]
mod tests;
