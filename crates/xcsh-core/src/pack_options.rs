//! What the user lets every pack of a session know: whether paths may lead
//! outside the working directory, and each pack's own configuration table.

use std::collections::BTreeMap;

use serde_json::Value;

/// The settings a session hands to the packs it loads (ABI v2 packs read
/// them through their host API; v1 packs never see them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackOptions {
    /// The user started xcsh with `--allow-outside-root`: a pack's
    /// `ToolContext::confined_path` lets paths resolve outside the working
    /// directory, as `ast_edit` does.
    pub allow_outside_root: bool,
    /// Each pack's configuration (`[packs.NAME]` in the user's config), by
    /// pack name. A pack without a table gets none.
    pub configs: BTreeMap<String, Value>,
}

impl PackOptions {
    /// The configuration table of the pack named `pack`, if the user wrote
    /// one.
    pub fn config(&self, pack: &str) -> Option<&Value> {
        self.configs.get(pack)
    }
}
