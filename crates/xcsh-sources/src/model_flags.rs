//! The model flags of `xcsh agent`, as clap parses them: each wins over
//! the same field of the user's `[model]` table
//! ([`ModelConfig`](crate::model_config::ModelConfig)).

use clap::Args;

/// Which model to talk to, from the command line. A key is never given
/// here: only the name of the environment variable holding it.
#[derive(Debug, Clone, Default, Args)]
pub struct ModelArgs {
    /// The model API: openai (Chat Completions) or anthropic (Messages).
    #[arg(long, value_name = "API")]
    pub api: Option<String>,

    /// The API's base URL, e.g. http://127.0.0.1:8080/v1 (openai) or
    /// https://api.anthropic.com (anthropic).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// The model's name.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// The NAME of the environment variable holding the API key (the key
    /// itself is never given on the command line or in a file).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,

    /// Ask for whole answers instead of streamed ones.
    #[arg(long)]
    pub no_stream: bool,

    /// The provider cannot force a named tool: steer with `required`
    /// (only `resolve` offered) from the start.
    #[arg(long)]
    pub no_named_tool_choice: bool,

    /// How the request after a preview steers the model to `resolve`:
    /// `remind` keeps the tool choice and sends the reminder, forcing
    /// `resolve` only when the model does not call it; `force` forces it
    /// at once.
    #[arg(long, value_name = "remind|force")]
    pub first_steer: Option<String>,
}
