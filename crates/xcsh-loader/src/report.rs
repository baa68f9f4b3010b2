//! What loading a set of packs did.

use std::fmt;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::LoadError;

/// A pack that loaded, with the tools it registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedPack {
    /// The library's canonical path.
    pub path: PathBuf,
    /// The pack's name.
    pub name: String,
    /// The pack's version.
    pub version: String,
    /// The names of the tools it registered (conflicting ones left out).
    pub tools: Vec<String>,
    /// When its library file was last written: tells two builds of one
    /// pack version apart.
    pub built: Option<std::time::SystemTime>,
}

/// A pack that failed to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadFailure {
    /// The path as given.
    pub path: PathBuf,
    /// Why.
    pub error: LoadError,
}

impl fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Failed to load tool pack {}: {}",
            xcsh_safe_fs::name::shown(&self.path),
            self.error
        )
    }
}

/// A pack tool that lost a name conflict (built-ins win, then the first
/// pack loaded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolConflict {
    /// The losing pack's path.
    pub path: PathBuf,
    /// The contested name.
    pub name: String,
}

impl fmt::Display for ToolConflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Tool name \"{}\" conflicts with existing tool",
            self.name
        )
    }
}

/// Everything a load did: packs loaded, packs failed, tools refused.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Packs that loaded, in load order.
    pub loaded: Vec<LoadedPack>,
    /// Packs that failed, in load order.
    pub failures: Vec<LoadFailure>,
    /// Tools refused for their name.
    pub conflicts: Vec<ToolConflict>,
}

impl LoadReport {
    /// True when nothing failed and nothing conflicted.
    pub fn is_clean(&self) -> bool {
        self.failures.is_empty() && self.conflicts.is_empty()
    }

    /// One line per problem: failures, then conflicts.
    pub fn problems(&self) -> Vec<String> {
        self.failures
            .iter()
            .map(ToString::to_string)
            .chain(self.conflicts.iter().map(ToString::to_string))
            .collect()
    }

    /// The report as JSON, for scripts.
    pub fn to_json(&self) -> Value {
        json!({
            "loaded": self.loaded.iter().map(|p| json!({
                "path": p.path, "name": p.name, "version": p.version, "tools": p.tools,
            })).collect::<Vec<_>>(),
            "failures": self.failures.iter().map(|f| json!({
                "path": f.path, "error": f.error.to_string(), "message": f.to_string(),
            })).collect::<Vec<_>>(),
            "conflicts": self.conflicts.iter().map(|c| json!({
                "path": c.path, "name": c.name, "message": c.to_string(),
            })).collect::<Vec<_>>(),
        })
    }

    /// Adds `other`'s entries after this report's.
    pub fn extend(&mut self, other: LoadReport) {
        self.loaded.extend(other.loaded);
        self.failures.extend(other.failures);
        self.conflicts.extend(other.conflicts);
    }
}
