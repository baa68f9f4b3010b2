//! What a [`PackTest`](crate::PackTest)'s session tells the pack.

use std::collections::BTreeMap;

use serde_json::Value;
use xcsh_core::PackOptions;

/// What the session tells the pack.
#[derive(Debug, Default)]
pub(crate) struct Setup {
    /// The JSON Schema of the configuration type (empty: none).
    pub config_schema: &'static str,
    /// The pack's configuration table.
    pub config: Option<Value>,
    /// Run as under `--allow-outside-root`.
    pub allow_outside_root: bool,
}

impl Setup {
    /// The session's settings for the pack `name`.
    pub fn settings(&self, name: &str) -> PackOptions {
        PackOptions {
            allow_outside_root: self.allow_outside_root,
            configs: self
                .config
                .iter()
                .map(|table| (name.to_owned(), table.clone()))
                .collect::<BTreeMap<_, _>>(),
        }
    }
}
