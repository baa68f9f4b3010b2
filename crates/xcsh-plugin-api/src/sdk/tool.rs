//! The tool trait authors implement, and closures as tools.

use std::fmt;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::{ToolContext, ToolError, ToolHints, ToolOutput};

/// A tool with typed parameters.
///
/// The parameter schema is derived from `Params` (via `schemars`); the host
/// validates every call's arguments against it before `execute` runs. A
/// panic inside any method becomes an error result for that call.
pub trait Tool: Send + Sync + 'static {
    /// The arguments, deserialised from the call's JSON.
    type Params: DeserializeOwned + JsonSchema;

    /// The unique name the model calls the tool by (`^[A-Za-z0-9_-]{1,64}$`).
    fn name(&self) -> &str;

    /// A short human-readable label.
    fn label(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// What the tool says about its effects (default: nothing stated).
    /// A preview tool returns [`ToolHints::PREVIEW`].
    fn hints(&self) -> ToolHints {
        ToolHints::default()
    }

    /// Runs one call.
    ///
    /// # Errors
    ///
    /// A [`ToolError`] the model sees as an error result.
    fn execute(&self, params: Self::Params, ctx: &ToolContext<'_>)
    -> Result<ToolOutput, ToolError>;
}

/// A tool made of a closure.
///
/// ```
/// use xcsh_plugin_api::prelude::*;
///
/// #[params]
/// struct Greet {
///     /// Who to greet.
///     name: String,
/// }
///
/// let tool = FnTool::new("greet", "Greet", "Says hello.", |p: Greet, _ctx| {
///     Ok(ToolOutput::text(format!("Hello, {}!", p.name)))
/// });
/// # let _ = tool;
/// ```
pub struct FnTool<P, F> {
    name: String,
    label: String,
    description: String,
    hints: ToolHints,
    run: F,
    params: PhantomData<fn(P)>,
}

impl<P, F> FnTool<P, F>
where
    P: DeserializeOwned + JsonSchema + 'static,
    F: Fn(P, &ToolContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
{
    /// A tool called `name` that runs `run`.
    pub fn new(
        name: impl Into<String>,
        label: impl Into<String>,
        description: impl Into<String>,
        run: F,
    ) -> Self {
        Self {
            name: name.into(),
            label: label.into(),
            description: description.into(),
            hints: ToolHints::default(),
            run,
            params: PhantomData,
        }
    }

    /// States the tool's effects.
    pub fn with_hints(mut self, hints: ToolHints) -> Self {
        self.hints = hints;
        self
    }
}

impl<P, F> Tool for FnTool<P, F>
where
    P: DeserializeOwned + JsonSchema + 'static,
    F: Fn(P, &ToolContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
{
    type Params = P;

    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn hints(&self) -> ToolHints {
        self.hints
    }

    fn execute(&self, params: P, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        (self.run)(params, ctx)
    }
}

impl<P, F> fmt::Debug for FnTool<P, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.name)
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}
