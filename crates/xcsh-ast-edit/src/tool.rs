//! `ast_edit`: the agent's own structural search-and-replace tool.

use std::sync::Arc;

use serde_json::Value;
use xcsh_core::{PendingAction, PendingActionStore, Tool, ToolContext, ToolError, ToolOutput};

use crate::apply::apply;
use crate::label::preview_label;
use crate::plan::plan;
use crate::preview::{preview_details, preview_text};
use crate::{AstEditError, AstEditOptions, AstEditParams};

/// The name the model calls `ast_edit` by, and the source tool name of its
/// pending actions.
pub const AST_EDIT_TOOL_NAME: &str = "ast_edit";

const DESCRIPTION: &str = "Structural search-and-replace over source files with ast-grep \
patterns. `pattern` is code of the given language with metavariables: `$A` matches one \
syntax node, `$$$A` any number of nodes (e.g. `foo($$$ARGS)`); `rewrite` may use the \
captured metavariables. Always a preview: it reports matches with line numbers and a \
unified diff and changes nothing; call `resolve` to apply or discard. Languages: rust, \
typescript (.ts), tsx, javascript, python, go.";

/// The built-in `ast_edit` tool of one session.
///
/// Every call previews: it plans the edit, shows matches and a diff, and
/// on at least one replacement pushes a pending action labelled
/// `AST Edit: {n} replacement{s} in {m} file{s}` onto the session's store.
/// Applying it writes each file in place under a lock, unless the file
/// changed since the preview (see the crate docs).
#[derive(Debug)]
pub struct AstEditTool {
    store: Arc<PendingActionStore>,
    parameters: Value,
    options: AstEditOptions,
}

impl AstEditTool {
    /// An `ast_edit` whose previews go to `store` (a session's
    /// [`store()`](xcsh_core::Session::store)).
    pub fn new(store: Arc<PendingActionStore>) -> Self {
        Self {
            store,
            parameters: AstEditParams::schema(),
            options: AstEditOptions::default(),
        }
    }

    /// The same tool under the user's `options`.
    pub fn with_options(mut self, options: AstEditOptions) -> Self {
        self.options = options;
        self
    }
}

impl Tool for AstEditTool {
    fn name(&self) -> &str {
        AST_EDIT_TOOL_NAME
    }

    fn label(&self) -> &str {
        "AST Edit"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn hints(&self) -> xcsh_core::ToolHints {
        xcsh_core::ToolHints::PREVIEW
    }

    fn execute(&self, arguments: Value, context: &ToolContext) -> Result<ToolOutput, ToolError> {
        let params: AstEditParams =
            serde_json::from_value(arguments).map_err(AstEditError::Arguments)?;
        let plan = plan(&params, context.cwd(), &self.options, || {
            context.is_cancelled()
        })?;
        let text = preview_text(&plan);
        let details = preview_details(&params, &plan);
        let total = plan.total_replacements();
        if total == 0 {
            return Ok(ToolOutput::text(text).with_details(details));
        }
        let label = preview_label(total, plan.changes.len());
        let writes = plan.into_writes();
        let action = PendingAction::try_new(label, move |_reason| apply(&writes))
            .map_err(|e| ToolError::new(e.to_string()))?
            .with_source_tool_name(AST_EDIT_TOOL_NAME)
            .with_details(details.clone());
        xcsh_core::push_for_running_call(&self.store, action)
            .map_err(|refused| ToolError::new(refused.to_string()))?;
        Ok(ToolOutput::text(text).with_details(details))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AstEditError, Language};

    #[test]
    fn public_types_are_send_and_sync() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<AstEditTool>();
        send_sync::<AstEditParams>();
        send_sync::<AstEditError>();
        send_sync::<Language>();
    }
}
