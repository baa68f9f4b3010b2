//! The set of tools a session offers, by unique name.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use xcsh_tool_types::{InvalidToolName, ToolError, check_tool_name};

use crate::arguments::{ArgumentError, ArgumentValidator};
use crate::tool::Tool;

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

/// A tool with its argument validator: compiled at registration, or at
/// the first call for a tool registered with
/// [`ToolRegistry::register_schema_checked`].
#[derive(Debug)]
pub(crate) struct RegisteredTool {
    tool: Arc<dyn Tool>,
    validator: OnceLock<Result<ArgumentValidator, ArgumentError>>,
    quick_check: Option<QuickCheck>,
}

impl RegisteredTool {
    /// The tool.
    pub(crate) fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    /// Checks `arguments` against the tool's schema.
    ///
    /// # Errors
    ///
    /// `Invalid arguments for {name}: {what is wrong}`; for a tool whose
    /// schema was compiled only now and is invalid, `Tool {name} is
    /// unavailable: {what is wrong with the schema}`.
    pub(crate) fn validate(&self, arguments: &Value) -> Result<(), ToolError> {
        if self.quick_check.is_some_and(|accepts| accepts(arguments)) {
            return Ok(());
        }
        let name = self.tool.name();
        let validator = self
            .validator
            .get_or_init(|| ArgumentValidator::new(self.tool.parameters()))
            .as_ref()
            .map_err(|e| ToolError::new(format!("Tool {name} is unavailable: {e}")))?;
        validator
            .validate(arguments)
            .map_err(|e| ToolError::new(format!("Invalid arguments for {name}: {e}")))
    }
}

/// Tools by unique name, in registration order.
#[derive(Debug, Default)]
pub(crate) struct ToolRegistry {
    tools: Vec<Arc<RegisteredTool>>,
    by_name: HashMap<String, usize>,
}

impl ToolRegistry {
    /// An empty registry.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds `tool`, compiling its parameter schema.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Conflict`] if the name is taken (the existing tool
    /// stays), [`RegistryError::InvalidName`] or
    /// [`RegistryError::InvalidSchema`].
    pub(crate) fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.register_checked(tool, None)
    }

    /// [`register`](Self::register), with a [`QuickCheck`] run before the
    /// schema on every call.
    pub(crate) fn register_checked(
        &mut self,
        tool: Arc<dyn Tool>,
        quick_check: Option<QuickCheck>,
    ) -> Result<(), RegistryError> {
        let name = self.check_name(tool.as_ref())?;
        let validator = ArgumentValidator::new(tool.parameters()).map_err(|source| {
            RegistryError::InvalidSchema {
                name: name.clone(),
                source,
            }
        })?;
        self.insert(name, tool, OnceLock::from(Ok(validator)), quick_check);
        Ok(())
    }

    /// Adds a tool whose parameter schema was checked before it got here
    /// (an installed pack's, checked when the pack was added): its name is
    /// checked now, its schema is compiled at its first call. Registering
    /// hundreds of such tools costs no schema compilation; a schema that
    /// turns out invalid makes each call an error result (`Tool {name} is
    /// unavailable: invalid parameters schema: …`) instead of refusing the
    /// tool here.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Conflict`] if the name is taken (the existing tool
    /// stays), or [`RegistryError::InvalidName`].
    pub(crate) fn register_schema_checked(
        &mut self,
        tool: Arc<dyn Tool>,
    ) -> Result<(), RegistryError> {
        let name = self.check_name(tool.as_ref())?;
        self.insert(name, tool, OnceLock::new(), None);
        Ok(())
    }

    /// The tool's name, if it is valid and free.
    fn check_name(&self, tool: &dyn Tool) -> Result<String, RegistryError> {
        let name = tool.name().to_owned();
        check_tool_name(&name).map_err(|e| RegistryError::InvalidName { name: e.name })?;
        if self.by_name.contains_key(&name) {
            return Err(RegistryError::Conflict { name });
        }
        Ok(name)
    }

    fn insert(
        &mut self,
        name: String,
        tool: Arc<dyn Tool>,
        validator: OnceLock<Result<ArgumentValidator, ArgumentError>>,
        quick_check: Option<QuickCheck>,
    ) {
        self.by_name.insert(name, self.tools.len());
        self.tools.push(Arc::new(RegisteredTool {
            tool,
            validator,
            quick_check,
        }));
    }

    /// The tool called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<RegisteredTool>> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    /// All tools, in registration order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.iter().map(|r| &r.tool)
    }

    /// How many tools are registered.
    pub(crate) fn len(&self) -> usize {
        self.tools.len()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use xcsh_tool_types::ToolOutput;

    use super::*;
    use crate::tool::ToolContext;

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
    fn a_schema_checked_tool_compiles_its_schema_at_its_first_call() {
        let mut registry = ToolRegistry::new();
        let bad = json!({"type": "object", "required": 5});
        let refused = registry
            .register(Arc::new(Named("eager".into(), bad.clone())))
            .unwrap_err();
        assert!(
            matches!(refused, RegistryError::InvalidSchema { .. }),
            "{refused:?}"
        );
        registry
            .register_schema_checked(Arc::new(Named("later".into(), bad)))
            .unwrap();
        registry
            .register_schema_checked(Arc::new(Named(
                "fine".into(),
                json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            )))
            .unwrap();
        let error = registry
            .get("later")
            .unwrap()
            .validate(&json!({}))
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("Tool later is unavailable: invalid parameters schema: "),
            "{error}"
        );
        let fine = registry.get("fine").unwrap();
        fine.validate(&json!({"n": 1})).unwrap();
        assert!(
            fine.validate(&json!({"n": "x"}))
                .unwrap_err()
                .to_string()
                .starts_with("Invalid arguments for fine: /n: "),
        );
        assert!(matches!(
            registry.register_schema_checked(tool("fine")),
            Err(RegistryError::Conflict { .. })
        ));
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
