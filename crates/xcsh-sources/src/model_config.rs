//! The `[model]` table of the user's config file: the model `xcsh agent`
//! talks to. Read from the user's config only (a project's is ignored
//! with a warning: which model reads the project, and with whose key, is
//! the user's choice). It names the environment variable that holds the
//! API key, never the key.
//!
//! ```toml
//! [model]
//! api = "openai"                           # or "anthropic"
//! base_url = "http://127.0.0.1:8080/v1"
//! model = "smollm2"
//! api_key_env = "OPENAI_API_KEY"           # the variable's NAME
//! stream = true
//! named_tool_choice = true                 # false: the ladder starts at `required`
//! first_steer = "force"                    # or "remind" (see `xcsh agent --first-steer`)
//! ```

use serde::Deserialize;

/// The `[model]` table. An `api_key` field is refused as unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// `openai` (Chat Completions, the default) or `anthropic` (Messages).
    #[serde(default)]
    pub api: Option<String>,
    /// The API's base URL.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The model's name.
    #[serde(default)]
    pub model: Option<String>,
    /// The name of the environment variable that holds the API key.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// `false` asks for whole answers instead of streamed ones.
    #[serde(default)]
    pub stream: Option<bool>,
    /// `false` for a provider that cannot force a named tool: the
    /// tool-choice ladder starts at `required`.
    #[serde(default)]
    pub named_tool_choice: Option<bool>,
    /// `remind` or `force`: how the request after a preview steers the
    /// model to `resolve` (see `xcsh agent --first-steer`).
    #[serde(default)]
    pub first_steer: Option<String>,
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn the_table_parses_and_a_key_is_refused() {
        let config = Config::parse(
            "[model]\napi = \"anthropic\"\nbase_url = \"http://127.0.0.1:1\"\nmodel = \"m\"\napi_key_env = \"KEY_VAR\"\nstream = false\nnamed_tool_choice = false\nfirst_steer = \"remind\"\n",
        )
        .unwrap();
        let model = config.model.unwrap();
        assert_eq!(model.api.as_deref(), Some("anthropic"));
        assert_eq!(model.api_key_env.as_deref(), Some("KEY_VAR"));
        assert_eq!(
            (model.stream, model.named_tool_choice),
            (Some(false), Some(false))
        );
        assert_eq!(model.first_steer.as_deref(), Some("remind"));
        assert_eq!(
            Config::parse("[model]\napi_key = \"sk-secret\"\n").unwrap_err(),
            "line 2: unknown field `api_key`, expected one of `api`, `base_url`, `model`, `api_key_env`, `stream`, `named_tool_choice`, `first_steer`"
        );
    }
}
