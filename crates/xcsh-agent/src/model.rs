//! Which model a session's `xcsh agent` loop talks to: the model flags,
//! else the user's `[model]` table (never a project's: `xcsh-sources`
//! drops that with a warning). A key is only ever read, when the provider
//! connects, from the environment variable named here.

use xcsh_core::ProviderCapabilities;
use xcsh_model::{AnswerLimits, Api, FirstSteer, ModelSettings};
use xcsh_sources::{ModelArgs, ModelConfig};

/// The model settings from the flags, else the user's `[model]` table.
///
/// # Errors
///
/// One line: no base URL or model anywhere, or an API that is not
/// `openai` or `anthropic`.
pub fn model_settings(
    flags: &ModelArgs,
    config: Option<&ModelConfig>,
) -> Result<ModelSettings, String> {
    let from_config = |field: fn(&ModelConfig) -> Option<&String>| config.and_then(field).cloned();
    let api = match flags
        .api
        .clone()
        .or_else(|| from_config(|c| c.api.as_ref()))
    {
        None => Api::Openai,
        Some(name) => match name.as_str() {
            "openai" => Api::Openai,
            "anthropic" => Api::Anthropic,
            other => {
                return Err(format!(
                    "unknown model API {other:?}: expected openai or anthropic"
                ));
            }
        },
    };
    let missing = |what: &str, flag: &str| {
        format!("no model {what}: give {flag}, or set it in the [model] table of your config file")
    };
    let base_url = flags
        .base_url
        .clone()
        .or_else(|| from_config(|c| c.base_url.as_ref()))
        .ok_or_else(|| missing("base URL", "--base-url"))?;
    let model = flags
        .model
        .clone()
        .or_else(|| from_config(|c| c.model.as_ref()))
        .ok_or_else(|| missing("name", "--model"))?;
    Ok(ModelSettings {
        api,
        base_url,
        model,
        api_key_env: flags
            .api_key_env
            .clone()
            .or_else(|| from_config(|c| c.api_key_env.as_ref())),
        stream: !flags.no_stream && config.and_then(|c| c.stream).unwrap_or(true),
        limits: AnswerLimits::default(),
    })
}

/// How the request after a preview steers the model: the flag, else the
/// `[model]` table's `first_steer`, else [`FirstSteer::default`].
///
/// # Errors
///
/// One line: a name that is not `remind` or `force`.
pub fn first_steer(flags: &ModelArgs, config: Option<&ModelConfig>) -> Result<FirstSteer, String> {
    flags
        .first_steer
        .as_deref()
        .or_else(|| config.and_then(|c| c.first_steer.as_deref()))
        .map_or(Ok(FirstSteer::default()), str::parse)
}

/// What the provider can be asked for: a named tool choice unless the
/// flags or the `[model]` table say it cannot.
pub fn capabilities(flags: &ModelArgs, config: Option<&ModelConfig>) -> ProviderCapabilities {
    ProviderCapabilities {
        named_tool_choice: !flags.no_named_tool_choice
            && config.and_then(|c| c.named_tool_choice).unwrap_or(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ModelConfig {
        ModelConfig {
            api: Some("anthropic".into()),
            base_url: Some("http://127.0.0.1:9/".into()),
            model: Some("from-config".into()),
            api_key_env: Some("CONFIG_KEY_VAR".into()),
            stream: Some(false),
            named_tool_choice: Some(false),
            first_steer: Some("remind".into()),
        }
    }

    #[test]
    fn flags_win_over_the_config_field_by_field() {
        let flags = ModelArgs {
            model: Some("from-flags".into()),
            ..ModelArgs::default()
        };
        let settings = model_settings(&flags, Some(&config())).unwrap();
        assert_eq!(settings.api, Api::Anthropic);
        assert_eq!(settings.model, "from-flags");
        assert_eq!(settings.base_url, "http://127.0.0.1:9/");
        assert_eq!(settings.api_key_env.as_deref(), Some("CONFIG_KEY_VAR"));
        assert!(!settings.stream);
        assert!(!capabilities(&flags, Some(&config())).named_tool_choice);
        assert!(capabilities(&flags, None).named_tool_choice);
        assert_eq!(first_steer(&flags, Some(&config())), Ok(FirstSteer::Remind));
        assert_eq!(first_steer(&flags, None), Ok(FirstSteer::default()));
        let force = ModelArgs {
            first_steer: Some("force".into()),
            ..ModelArgs::default()
        };
        assert_eq!(first_steer(&force, Some(&config())), Ok(FirstSteer::Force));
    }

    #[test]
    fn missing_and_unknown_fields_are_one_line_errors() {
        assert_eq!(
            model_settings(&ModelArgs::default(), None).unwrap_err(),
            "no model base URL: give --base-url, or set it in the [model] table of your config file"
        );
        let flags = ModelArgs {
            base_url: Some("http://127.0.0.1:9/v1".into()),
            ..ModelArgs::default()
        };
        assert_eq!(
            model_settings(&flags, None).unwrap_err(),
            "no model name: give --model, or set it in the [model] table of your config file"
        );
        let flags = ModelArgs {
            api: Some("gemini".into()),
            ..flags
        };
        assert_eq!(
            model_settings(&flags, None).unwrap_err(),
            "unknown model API \"gemini\": expected openai or anthropic"
        );
        let flags = ModelArgs {
            first_steer: Some("gently".into()),
            ..ModelArgs::default()
        };
        assert_eq!(
            first_steer(&flags, None).unwrap_err(),
            "unknown first steer \"gently\": expected remind or force"
        );
    }
}
