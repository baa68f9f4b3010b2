//! From settings to a provider: the key read from the variable the
//! settings name, then the API's client.

use crate::api_key::ApiKey;
use crate::settings::Api;
use crate::{ModelError, ModelSettings, Provider, anthropic::Anthropic, openai::OpenAi};

impl ModelSettings {
    /// The provider these settings describe, with the key read from the
    /// named environment variable now.
    ///
    /// # Errors
    ///
    /// [`ModelError::MissingKey`] when a variable is named but not set (or
    /// empty).
    pub fn connect(&self) -> Result<Box<dyn Provider>, ModelError> {
        let key = match &self.api_key_env {
            Some(name) => match std::env::var(name) {
                Ok(key) if !key.is_empty() => Some(ApiKey(key)),
                _ => return Err(ModelError::MissingKey(name.clone())),
            },
            None => None,
        };
        let http = crate::http::Http::new(self.limits);
        Ok(match self.api {
            Api::Openai => Box::new(OpenAi::new(http, self, key)),
            Api::Anthropic => Box::new(Anthropic::new(http, self, key)),
        })
    }
}
