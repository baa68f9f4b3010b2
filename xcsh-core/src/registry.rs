//! The set of tools a session offers, by unique name.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::{ArgumentError, ArgumentValidator, InvalidToolName, Tool, ToolError, check_tool_name};

/// Why a tool could not be registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// Another tool already has this name (the first one registered wins).
    #[error("Tool name \"{name}\" conflicts with existing tool")]
    Conflict {
        /// The contested name.
        name: String,
    },
    /// The name is not 1–64 characters of `A-Z a-z 0-9 _ -`.
    #[error("{}", InvalidToolName { name: name.clone() })]
    InvalidName {
        /// The refused name.
        name: String,
    },
    /// The tool's parameter schema cannot validate arguments.
    #[error("tool \"{name}\": {source}")]
    InvalidSchema {
        /// The tool's name.
        name: String,
        /// What is wrong with the schema.
        #[source]
        source: ArgumentError,
    },
}

/// A cheap test that accepts only arguments the tool's schema accepts, run
/// before the schema: what it accepts skips the schema pass, anything else
/// goes through the schema, so errors are always the schema's.
pub(crate) type QuickCheck = fn(&Value) -> bool;

/// A tool with its compiled argument validator.
#[derive(Debug)]
pub struct RegisteredTool {
    tool: Arc<dyn Tool>,
    validator: ArgumentValidator,
    quick_check: Option<QuickCheck>,
}

impl RegisteredTool {
    /// The tool.
    pub fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    /// Checks `arguments` against the tool's schema.
    ///
    /// # Errors
    ///
    /// `Invalid arguments for {name}: {what is wrong}`.
    pub fn validate(&self, arguments: &Value) -> Result<(), ToolError> {
        if self.quick_check.is_some_and(|accepts| accepts(arguments)) {
            return Ok(());
        }
        self.validator
            .validate(arguments)
            .map_err(|e| ToolError::new(format!("Invalid arguments for {}: {e}", self.tool.name())))
    }
}

/// Tools by unique name, in registration order.
#[derive(Debug, Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<RegisteredTool>>,
    by_name: HashMap<String, usize>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tool`, compiling its parameter schema.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Conflict`] if the name is taken (the existing tool
    /// stays), [`RegistryError::InvalidName`] or
    /// [`RegistryError::InvalidSchema`].
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.register_checked(tool, None)
    }

    /// [`register`](Self::register), with a [`QuickCheck`] run before the
    /// schema on every call.
    pub(crate) fn register_checked(
        &mut self,
        tool: Arc<dyn Tool>,
        quick_check: Option<QuickCheck>,
    ) -> Result<(), RegistryError> {
        let name = tool.name().to_owned();
        check_tool_name(&name).map_err(|e| RegistryError::InvalidName { name: e.name })?;
        if self.by_name.contains_key(&name) {
            return Err(RegistryError::Conflict { name });
        }
        let validator = ArgumentValidator::new(tool.parameters()).map_err(|source| {
            RegistryError::InvalidSchema {
                name: name.clone(),
                source,
            }
        })?;
        self.by_name.insert(name, self.tools.len());
        self.tools.push(Arc::new(RegisteredTool {
            tool,
            validator,
            quick_check,
        }));
        Ok(())
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<RegisteredTool>> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// True if a tool is called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// All tools, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter().map(|r| &r.tool)
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ToolContext, ToolOutput};

    struct Named(String, Value);

    impl Tool for Named {
        fn name(&self) -> &str {
            &self.0
        }
        fn label(&self) -> &str {
            "Named"
        }
        fn description(&self) -> &str {
            "a test tool"
        }
        fn parameters(&self) -> &Value {
            &self.1
        }
        fn execute(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::text(&self.0))
        }
    }

    fn tool(name: &str) -> Arc<dyn Tool> {
        Arc::new(Named(name.to_owned(), json!({"type": "object"})))
    }

    #[test]
    fn duplicate_names_conflict_and_first_wins() {
        let mut registry = ToolRegistry::new();
        registry.register(tool("echo")).unwrap();
        let err = registry.register(tool("echo")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Tool name \"echo\" conflicts with existing tool"
        );
        assert_eq!(registry.len(), 1);
    }

    #[test]
    fn keeps_registration_order() {
        let mut registry = ToolRegistry::new();
        for name in ["b", "a", "c"] {
            registry.register(tool(name)).unwrap();
        }
        let names: Vec<&str> = registry.iter().map(|t| t.name()).collect();
        assert_eq!(names, ["b", "a", "c"]);
    }

    #[test]
    fn refuses_invalid_names() {
        let mut registry = ToolRegistry::new();
        for name in ["", "has space", "dot.name", &"x".repeat(65)] {
            let err = registry.register(tool(name)).unwrap_err();
            assert!(
                matches!(err, RegistryError::InvalidName { .. }),
                "{name}: {err}"
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "invalid tool name {name:?}: expected 1-64 characters of A-Z, a-z, 0-9, _ or -"
                )
            );
        }
        registry.register(tool("ok_Name-1")).unwrap();
    }

    #[test]
    fn refuses_non_object_schemas() {
        let mut registry = ToolRegistry::new();
        let err = registry
            .register(Arc::new(Named("s".into(), json!({"type": "string"}))))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool \"s\": parameters schema must be a JSON object schema with \"type\": \"object\""
        );
    }
}
