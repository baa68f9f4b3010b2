//! Setting up a [`PackTest`] with more than a fresh directory.

use std::path::PathBuf;

use serde_json::Value;
use xcsh_plugin_api::Factory;
use xcsh_plugin_api::schemars::JsonSchema;

use crate::setup::Setup;
use crate::{PackTest, PackTestError};

/// Builds a [`PackTest`]: [`PackTestBuilder::new`]`(name, factory)`, then
/// what the test needs, then [`build`](Self::build).
///
/// ```
/// use xcsh_pack_test::{PackTestBuilder, json};
/// use xcsh_plugin_api::prelude::*;
///
/// /// The pack's configuration (`[packs.limits-pack]`).
/// #[params]
/// #[serde(default)]
/// struct Limits {
///     /// At most this many files per call.
///     max_files: u32,
/// }
/// impl Default for Limits {
///     fn default() -> Self { Self { max_files: 10 } }
/// }
///
/// fn tools(host: &Host) -> Result<ToolPack, ToolError> {
///     let limits: Limits = host.config()?;
///     let max = limits.max_files;
///     Ok(ToolPack::new().with_tool(FnTool::new(
///         "max_files", "Max files", "Says the limit.",
///         move |_: NoParams, _ctx| Ok(ToolOutput::text(max.to_string())),
///     )))
/// }
///
/// let pack = PackTestBuilder::new("limits-pack", tools)
///     .config::<Limits>(json!({"max_files": 3}))
///     .build()?;
/// assert_eq!(pack.call("max_files", json!({})).text(), "3");
///
/// let refused = PackTestBuilder::new("limits-pack", tools)
///     .config::<Limits>(json!({"max_file": 3}))
///     .build()
///     .unwrap_err();
/// assert_eq!(
///     std::error::Error::source(&refused).unwrap().to_string(),
///     "[packs.limits-pack]: Additional properties are not allowed ('max_file' was unexpected)"
/// );
/// # Ok::<(), xcsh_pack_test::PackTestError>(())
/// ```
#[derive(Debug)]
#[must_use = "call build() to start the session"]
pub struct PackTestBuilder {
    name: String,
    factory: Factory,
    dir: Option<PathBuf>,
    setup: Setup,
}

impl PackTestBuilder {
    /// A builder of a [`PackTest`] of the pack `name` made by `factory`,
    /// for a pack that needs more than a fresh directory: its
    /// configuration table, `--allow-outside-root`, a directory of the
    /// test's.
    pub fn new(name: &str, factory: Factory) -> Self {
        Self {
            name: name.to_owned(),
            factory,
            dir: None,
            setup: Setup::default(),
        }
    }

    /// The pack's configuration table, as the user would write it under
    /// `[packs.NAME]` (as JSON), checked against the schema of `T` (the
    /// type the pack names in `export_tool_pack!(factory, config = T)`)
    /// before the factory runs, as the agent checks it.
    pub fn config<T: JsonSchema>(mut self, table: Value) -> Self {
        self.setup.config_schema = xcsh_plugin_api::ffi::__config_schema::<T>();
        self.setup.config = Some(table);
        self
    }

    /// Runs as under `xcsh --allow-outside-root`:
    /// `ToolContext::confined_path` lets paths lead outside the working
    /// directory.
    pub fn allow_outside_root(mut self) -> Self {
        self.setup.allow_outside_root = true;
        self
    }

    /// Works in `dir` (which the test owns) instead of a fresh temporary
    /// directory.
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Starts the session and loads the pack.
    ///
    /// # Errors
    ///
    /// As [`PackTest::new`], and [`PackTestError::Load`] with the agent's
    /// one-line message when the configuration table does not match the
    /// schema.
    pub fn build(self) -> Result<PackTest, PackTestError> {
        match self.dir {
            Some(dir) => PackTest::start(&self.name, self.factory, dir, None, &self.setup),
            None => {
                let temporary = tempfile::Builder::new()
                    .prefix("xcsh-pack-test-")
                    .tempdir()
                    .map_err(PackTestError::WorkDir)?;
                let dir = temporary.path().to_path_buf();
                PackTest::start(&self.name, self.factory, dir, Some(temporary), &self.setup)
            }
        }
    }
}
