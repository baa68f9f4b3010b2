//! OpenAI-compatible Chat Completions (`POST {base}/chat/completions`).
//!
//! The common denominator of OpenAI, vLLM, llama.cpp, Ollama, LM Studio
//! and hosted routers. Assistant messages that carry tool calls send
//! `"content": ""`, never `null`: some servers (llama-cpp-python) refuse
//! `null`. Tool arguments travel as JSON text.
//!
//! A streamed answer is complete at `data: [DONE]`; one that closes before
//! it is an error, whatever came before. Streams ask for the usage chunk
//! (`stream_options.include_usage`); a server that sends none is counted
//! by estimate ([`Usage::estimate`]).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use xcsh_core::{CancellationToken, ToolCall, ToolChoice};

use crate::api_key::ApiKey;
use crate::http::{Exchange, Http, read_json};
use crate::sse::{Ended, cut_short, read_events};
use crate::{Message, ModelError, ModelSettings, Provider, Reply, Request, Usage};

/// The end marker of a Chat Completions stream.
const DONE: &str = "data: [DONE]";

/// A Chat Completions endpoint.
#[derive(Debug)]
pub(crate) struct OpenAi {
    http: Http,
    url: String,
    model: String,
    key: Option<ApiKey>,
    stream: bool,
}

impl OpenAi {
    pub(crate) fn new(http: Http, settings: &ModelSettings, key: Option<ApiKey>) -> Self {
        Self {
            http,
            url: format!(
                "{}/chat/completions",
                settings.base_url.trim_end_matches('/')
            ),
            model: settings.model.clone(),
            key,
            stream: settings.stream,
        }
    }
}

impl Provider for OpenAi {
    fn api(&self) -> &'static str {
        "openai"
    }

    fn complete(
        &self,
        request: &Request<'_>,
        cancel: &CancellationToken,
    ) -> Result<Reply, ModelError> {
        let body = request_body(&self.model, request, self.stream).to_string();
        let authorization = self.key.as_ref().map(|key| format!("Bearer {}", key.0));
        let mut headers = Vec::new();
        if let Some(value) = &authorization {
            headers.push(("Authorization", value.as_str()));
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
                if data.trim() == "[DONE]" {
                    return Ok(false);
                }
                let chunk: Value = serde_json::from_str(data)
                    .map_err(|error| ModelError::Decode(format!("a stream chunk: {error}")))?;
                reply.add(&chunk)?;
                Ok(true)
            })?;
            if ended != Ended::Complete {
                return Err(cut_short(ended, DONE));
            }
            reply.finish()
        })?;
        Ok(reply.counted(body.len()))
    }
}

/// The request's JSON body.
pub(crate) fn request_body(model: &str, request: &Request<'_>, stream: bool) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &request.conversation.system {
        messages.push(json!({"role": "system", "content": system}));
    }
    for message in &request.conversation.messages {
        messages.push(match message {
            Message::User(text) => json!({"role": "user", "content": text}),
            Message::Assistant { text, calls } if calls.is_empty() => {
                json!({"role": "assistant", "content": text})
            }
            Message::Assistant { text, calls } => json!({
                "role": "assistant",
                "content": text,
                "tool_calls": calls.iter().map(|call| json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments.to_string()},
                })).collect::<Vec<_>>(),
            }),
            Message::ToolResult {
                call_id,
                name,
                text,
                ..
            } => json!({"role": "tool", "tool_call_id": call_id, "name": name, "content": text}),
        });
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("max_tokens".into(), json!(request.max_tokens));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), tool_choice(request.choice));
    }
    if stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

/// `"auto"`, `"required"`, `"none"` or
/// `{"type": "function", "function": {"name": …}}`.
pub(crate) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Required => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool { name } => json!({"type": "function", "function": {"name": name}}),
    }
}

/// A whole (non-streamed) completion, whose calls' arguments are at most
/// `argument_bytes` each.
pub(crate) fn parse_reply(body: &Value, argument_bytes: u64) -> Result<Reply, ModelError> {
    let message = body
        .pointer("/choices/0/message")
        .ok_or_else(|| ModelError::Decode("no choices[0].message".to_owned()))?;
    let text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut calls = Vec::new();
    if let Some(list) = message.get("tool_calls").and_then(Value::as_array) {
        for (index, call) in list.iter().enumerate() {
            let name = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or_else(|| ModelError::Decode(format!("tool_calls[{index}] has no name")))?;
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(text)) => {
                    check_arguments(index, text.len(), argument_bytes)?;
                    arguments(text)
                }
                Some(other) => {
                    check_arguments(index, other.to_string().len(), argument_bytes)?;
                    other.clone()
                }
                None => json!({}),
            };
            let id = call.get("id").and_then(Value::as_str);
            calls.push(ToolCall::new(call_id(id, index), name, arguments));
        }
    }
    Ok(Reply {
        text,
        calls,
        usage: usage(body.get("usage")),
    })
}

/// The arguments' JSON text parsed; text that is not JSON stays a string,
/// which the session's schema check then refuses with a clear error the
/// model reads.
fn arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Call `index`'s arguments are `bytes` long: an error past `limit`.
pub(crate) fn check_arguments(index: usize, bytes: usize, limit: u64) -> Result<(), ModelError> {
    if bytes as u64 > limit {
        return Err(ModelError::TooLarge {
            what: format!("tool call {index}'s arguments"),
            limit,
            flag: "--max-argument-bytes",
        });
    }
    Ok(())
}

fn call_id(id: Option<&str>, index: usize) -> String {
    match id {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => format!("call_{index}"),
    }
}

fn usage(usage: Option<&Value>) -> Usage {
    let field = |name: &str| {
        usage
            .and_then(|usage| usage.get(name))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Usage {
        input: field("prompt_tokens"),
        output: field("completion_tokens"),
        estimated: false,
    }
}

/// A streamed completion, put together chunk by chunk: text deltas
/// appended, tool calls gathered by their `index` (the id and name come
/// first, the arguments' text in pieces). The name is taken whole from the
/// first chunk that has one: OpenAI sends it once, llama-cpp-python again
/// in every chunk of the call.
#[derive(Debug, Default)]
struct StreamedReply {
    text: String,
    calls: BTreeMap<u64, (Option<String>, String, String)>,
    usage: Usage,
    /// The most bytes of one call's arguments.
    argument_bytes: u64,
}

impl StreamedReply {
    fn new(argument_bytes: u64) -> Self {
        Self {
            argument_bytes,
            ..Self::default()
        }
    }

    fn add(&mut self, chunk: &Value) -> Result<(), ModelError> {
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            self.usage = self::usage(Some(usage));
        }
        let Some(delta) = chunk.pointer("/choices/0/delta") else {
            return Ok(());
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            self.text.push_str(text);
        }
        for (position, call) in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let index = call
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(position as u64);
            let entry = self.calls.entry(index).or_default();
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                entry.0 = Some(id.to_owned());
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str)
                && entry.1.is_empty()
            {
                name.clone_into(&mut entry.1);
            }
            if let Some(piece) = call.pointer("/function/arguments").and_then(Value::as_str) {
                // Named by its place in the answer, as `finish` names it.
                let place = self.calls.range(..index).count();
                let entry = self.calls.entry(index).or_default();
                check_arguments(place, entry.2.len() + piece.len(), self.argument_bytes)?;
                entry.2.push_str(piece);
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Reply, ModelError> {
        let mut calls = Vec::new();
        for (index, (id, name, text)) in self.calls.into_values().enumerate() {
            if name.is_empty() {
                return Err(ModelError::Decode(format!(
                    "streamed tool call {index} has no name"
                )));
            }
            calls.push(ToolCall::new(
                call_id(id.as_deref(), index),
                name,
                arguments(&text),
            ));
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
