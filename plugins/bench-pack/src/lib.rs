//! Benchmark fixture: a tool pack whose tools cost next to nothing.
//!
//! `xcsh-benches` loads this pack to measure what the host adds to a tool
//! call and to a push + `resolve` cycle. Each tool's work is a plain
//! function ([`noop`], [`plan_rename`]) that the tool's `execute` forwards
//! to, so the benchmarks can call the very same code directly, in-process,
//! as their baseline.
//!
//! Tool names carry a per-copy tag (`noop_7f…`): copies of this library
//! loaded side by side (the load and start-up benchmarks) register every
//! tool rather than conflict.
//!
//! - `noop` takes `{}` and answers `ok`: the smallest possible call.
//! - `plan_rename` takes batch-rename's exact arguments and plans the new
//!   names in memory (no file system): a batch-rename-sized call.
//! - `stage` pushes `count` pending actions whose apply does nothing: the
//!   resolve-cycle benchmark.
//!
//! Not a pack for users.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod noop;
mod plan_rename;
mod stage;

pub use noop::{Noop, NoopParams, noop};
pub use plan_rename::{PlanRename, PlanRenameParams, RenameRule, plan_rename};
pub use stage::{STAGED_LABEL, Stage, StageParams};

use xcsh_plugin_api::{Host, ToolError, ToolPack};

/// A byte whose address differs in every loaded copy of this library.
static COPY_MARKER: u8 = 0;

/// `{base}_{tag}` where the tag is unique to this copy of the library:
/// derived from the file it was loaded from, so the same copy gets the same
/// names in every process (an installed copy's recorded names match the
/// ones it offers when it opens), and copies loaded side by side register
/// all their tools instead of conflicting. Benchmarks find a tool by its
/// base name (see [`base_name`]).
pub(crate) fn tool_name(base: &str) -> String {
    static TAG: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    format!("{base}_{:x}", TAG.get_or_init(copy_tag))
}

/// A hash of the path of the mapped file holding [`COPY_MARKER`] (from
/// `/proc/self/maps`); where that cannot be read, the marker's address.
fn copy_tag() -> u64 {
    use std::hash::{Hash, Hasher};
    let address = std::ptr::addr_of!(COPY_MARKER) as usize;
    let path = std::fs::read_to_string("/proc/self/maps")
        .ok()
        .and_then(|maps| {
            maps.lines().find_map(|line| {
                let (range, rest) = line.split_once(' ')?;
                let (start, end) = range.split_once('-')?;
                let start = usize::from_str_radix(start, 16).ok()?;
                let end = usize::from_str_radix(end, 16).ok()?;
                let path = rest.split_whitespace().nth(4)?;
                (start <= address && address < end).then(|| path.to_owned())
            })
        });
    match path {
        Some(path) => {
            // `DefaultHasher::new` has fixed keys: the same path gives the
            // same tag in every process.
            let mut hasher = std::hash::DefaultHasher::new();
            path.hash(&mut hasher);
            hasher.finish() >> 16
        }
        None => address as u64,
    }
}

/// The base name of a tool of this pack: `noop_7f…` gives `noop`.
pub fn base_name(tool_name: &str) -> &str {
    tool_name
        .rsplit_once('_')
        .filter(|(_, tag)| !tag.is_empty() && tag.bytes().all(|b| b.is_ascii_hexdigit()))
        .map_or(tool_name, |(base, _)| base)
}

/// The pack's factory: `noop`, `plan_rename` and `stage`, each named
/// `{base}_{tag}` (see [`base_name`]).
pub fn tools(_host: &Host) -> Result<ToolPack, ToolError> {
    Ok(ToolPack::new()
        .with_tool(Noop::default())
        .with_tool(PlanRename::default())
        .with_tool(Stage::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_carry_a_copy_tag_that_base_name_strips() {
        let name = tool_name("plan_rename");
        assert!(name.starts_with("plan_rename_"), "{name}");
        assert_eq!(base_name(&name), "plan_rename");
        assert_eq!(base_name("plan_rename"), "plan_rename");
        assert!(name.len() <= 64);
    }
}

xcsh_plugin_api::export_tool_pack!(tools);
