//! Which provider to talk to, and how: from the command line or the
//! user's config, never from a project's (a key is only ever read from the
//! environment variable these settings name).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::AnswerLimits;

/// The provider APIs xcsh speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Api {
    /// OpenAI-compatible Chat Completions (`{base}/chat/completions`):
    /// OpenAI, vLLM, llama.cpp, Ollama, LM Studio, hosted routers.
    #[default]
    Openai,
    /// Anthropic Messages (`{base}/v1/messages`).
    Anthropic,
}

impl Api {
    /// The name used in configs and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything needed to reach a model.
#[derive(Clone, PartialEq, Eq)]
pub struct ModelSettings {
    /// The API.
    pub api: Api,
    /// The API's base URL: for `openai` up to and including the version
    /// (`http://127.0.0.1:8080/v1`), for `anthropic` the host
    /// (`https://api.anthropic.com`).
    pub base_url: String,
    /// The model's name as the provider knows it.
    pub model: String,
    /// The name of the environment variable holding the API key; `None`
    /// sends no key (local servers).
    pub api_key_env: Option<String>,
    /// Ask for streamed answers (server-sent events).
    pub stream: bool,
    /// What one answer may hold and how long its request may take.
    pub limits: AnswerLimits,
}

impl fmt::Debug for ModelSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelSettings")
            .field("api", &self.api)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key_env", &self.api_key_env)
            .field("stream", &self.stream)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}
