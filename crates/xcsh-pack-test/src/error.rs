//! Why a pack could not be set up for a test.

/// Why [`PackTest::new`](crate::PackTest::new) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PackTestError {
    /// The temporary working directory could not be created.
    #[error("cannot create a temporary working directory")]
    WorkDir(#[source] std::io::Error),
    /// The pack's factory failed, returned no tools, or returned a tool the
    /// host refuses (its name, label, description, schema or hints), as
    /// loading its library would.
    #[error("tool pack {name} did not load")]
    Load {
        /// The pack's name.
        name: String,
        /// What the loader reported.
        #[source]
        source: xcsh_loader::LoadError,
    },
    /// A tool could not join the session: its name is taken (by `resolve`
    /// or another tool of the pack) or its schema cannot validate.
    #[error("a tool of pack {name} cannot be registered")]
    Register {
        /// The pack's name.
        name: String,
        /// What the registry reported.
        #[source]
        source: xcsh_core::RegistryError,
    },
}
