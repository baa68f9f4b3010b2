//! Registering the agent's built-in tools in a session.

use std::sync::Arc;

use xcsh_core::{RegistryError, Session};

use crate::{AstEditOptions, AstEditTool};

/// Registers the built-in tools (`ast_edit`) in `session`, bound to its
/// pending-action store.
///
/// Call it before loading any tool pack: the registry keeps the first tool
/// of a name, so a pack's tool named `ast_edit` then loses the conflict.
///
/// # Errors
///
/// [`RegistryError::Conflict`] if a tool named `ast_edit` is already
/// registered (the session keeps that one).
pub fn register_builtins(session: &Session) -> Result<(), RegistryError> {
    register_builtins_with(session, AstEditOptions::default())
}

/// [`register_builtins`] with the user's `options` for `ast_edit`.
///
/// # Errors
///
/// As [`register_builtins`].
pub fn register_builtins_with(
    session: &Session,
    options: AstEditOptions,
) -> Result<(), RegistryError> {
    let tool = AstEditTool::new(Arc::clone(session.store())).with_options(options);
    session.register_tool(Arc::new(tool))
}
