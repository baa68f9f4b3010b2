//! Which packs run isolated, and with what: the `[isolation]` table of the
//! user's config file, `--isolate` and `XCSH_ISOLATE=1`.
//!
//! ```toml
//! [isolation]
//! all = false              # isolate every pack (as --isolate does)
//! require_sandbox = false  # true: refuse to run an isolated pack unconfined;
//!                          # "full": refuse it without namespaces
//! namespaces = true        # false: never start packs in namespaces
//! memory_limit_mb = 1024   # address-space limit of every isolated pack
//!
//! [isolation.packs."packs/libweather.so"]
//! isolate = true                 # the default for a listed pack
//! capabilities = ["network"]     # or "write-anywhere", "processes"
//! memory_limit_mb = 256
//! env = ["WEATHER_API_KEY"]      # passed on from the agent's environment
//! ```
//!
//! Isolation is the user's policy: the table is read from the user's
//! config file only. A project's `.xcsh/config.toml` cannot grant a pack
//! capabilities; its `[isolation]` table is ignored with a warning.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use xcsh_isolate_protocol::frame::MAX_FRAME_BYTES;

use super::protected::Protected;

/// The environment variable that isolates every pack when `1` or `true`.
pub const ISOLATE_ENV: &str = "XCSH_ISOLATE";

/// True when the value of [`ISOLATE_ENV`] asks for isolation.
pub fn env_asks_for_isolation(value: Option<&OsStr>) -> bool {
    value.is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
}

/// The `[isolation]` table of a config file.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IsolationConfig {
    /// Isolate every pack.
    #[serde(default)]
    pub all: bool,
    /// How much sandbox an isolated pack must get, or it does not run.
    #[serde(default)]
    pub require_sandbox: RequireSandbox,
    /// Start isolated packs in namespaces of their own (xcsh's own
    /// engine) where Linux allows them; `false` keeps them in the Landlock
    /// sandbox alone.
    #[serde(default = "yes")]
    pub namespaces: bool,
    /// Address-space limit of every isolated pack, in MiB.
    #[serde(default)]
    pub memory_limit_mb: Option<u64>,
    /// Per pack, by library path (relative to the config file's directory).
    #[serde(default)]
    pub packs: BTreeMap<PathBuf, PackIsolation>,
}

impl Default for IsolationConfig {
    fn default() -> Self {
        Self {
            all: false,
            require_sandbox: RequireSandbox::No,
            namespaces: true,
            memory_limit_mb: None,
            packs: BTreeMap::new(),
        }
    }
}

/// One pack's entry in `[isolation.packs]`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackIsolation {
    /// Run it in its own process (default for a listed pack: yes).
    #[serde(default = "yes")]
    pub isolate: bool,
    /// What its sandbox lets it do beyond the defaults.
    #[serde(default)]
    pub capabilities: Vec<Capability>,
    /// Its address-space limit in MiB (wins over the table's).
    #[serde(default)]
    pub memory_limit_mb: Option<u64>,
    /// Variables of the agent's environment passed on to it (beyond
    /// [`environment::ALWAYS`](super::environment::ALWAYS)).
    #[serde(default)]
    pub env: Vec<String>,
}

fn yes() -> bool {
    true
}

/// What a config may grant an isolated pack beyond writing in the
/// session's working and temporary directories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Capability {
    /// Open network connections (TCP connect and bind) and reach any
    /// socket (UDP, Unix).
    Network,
    /// Write anywhere the user may.
    WriteAnywhere,
    /// Start processes (without it, `fork`, `clone` of a process and
    /// `exec` are refused, so the memory limit bounds the whole pack).
    Processes,
}

/// How much of the sandbox an isolated pack must get, or it fails to load:
/// `require_sandbox = false` (the default), `true` or `"full"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RequireSandbox {
    /// Run it as confined as the machine allows (`false`).
    #[default]
    No,
    /// Refuse to run it unconfined (`true`): Landlock at least.
    Confined,
    /// Refuse to run it without namespaces of its own, or
    /// unconfined (`"full"`).
    Full,
}

impl<'de> Deserialize<'de> for RequireSandbox {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = RequireSandbox;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("true, false or \"full\"")
            }
            fn visit_bool<E: serde::de::Error>(self, value: bool) -> Result<Self::Value, E> {
                Ok(if value {
                    RequireSandbox::Confined
                } else {
                    RequireSandbox::No
                })
            }
            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Self::Value, E> {
                match value {
                    "full" => Ok(RequireSandbox::Full),
                    other => Err(E::invalid_value(serde::de::Unexpected::Str(other), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl IsolationConfig {
    /// The same table with pack paths made absolute against `base`.
    pub fn relative_to(self, base: &Path) -> Self {
        Self {
            packs: self
                .packs
                .into_iter()
                .map(|(path, pack)| (base.join(path), pack))
                .collect(),
            ..self
        }
    }
}

/// How the agent isolates packs, resolved from the user's config and the
/// command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IsolationPolicy {
    /// Isolate every pack (`--isolate`, `XCSH_ISOLATE=1` or `all = true`).
    pub all: bool,
    /// How much sandbox a pack must get.
    pub require_sandbox: RequireSandbox,
    /// What no isolated pack may change (xcsh's directories, pack files).
    pub protected: Protected,
    /// Never start packs in namespaces of their own (`namespaces = false`).
    pub without_namespaces: bool,
    /// The default memory limit, in bytes.
    pub memory_limit: Option<u64>,
    /// Per-pack entries, by canonical path where the file exists.
    pub packs: Vec<(PathBuf, PackIsolation)>,
    /// The `xcsh` executable that serves isolated packs (default: this
    /// process's own executable).
    pub host_exe: Option<PathBuf>,
    /// `-v` count passed on to the packs' processes.
    pub verbosity: u8,
    /// The session's result cap, which bounds every message a pack's
    /// process may send ([`frame_limit`](Self::frame_limit)); `None`: no
    /// cap.
    pub result_cap: Option<usize>,
    /// Where isolated packs' start records are kept
    /// ([`start_record`](super::start_record)): a pack with a record is
    /// offered from it and starts at its first call; `None`: every
    /// isolated pack starts at start-up.
    pub start_records: Option<PathBuf>,
}

/// What one isolated pack gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackSettings {
    /// Its granted capabilities.
    pub capabilities: Vec<Capability>,
    /// Its memory limit in bytes.
    pub memory_limit: Option<u64>,
    /// How much sandbox it must get.
    pub require_sandbox: RequireSandbox,
    /// The variables of the agent's environment granted to it.
    pub env: Vec<String>,
}

const MIB: u64 = 1024 * 1024;

impl IsolationPolicy {
    /// The policy from the user's `[isolation]` table (if any), isolating
    /// every pack when `force_all` (the flag or the environment variable).
    pub fn new(config: Option<&IsolationConfig>, force_all: bool) -> Self {
        let config = config.cloned().unwrap_or_default();
        Self {
            all: force_all || config.all,
            require_sandbox: config.require_sandbox,
            protected: Protected::default(),
            without_namespaces: !config.namespaces,
            memory_limit: config.memory_limit_mb.map(|mb| mb.saturating_mul(MIB)),
            packs: config
                .packs
                .into_iter()
                .map(|(path, pack)| (canonical(&path), pack))
                .collect(),
            host_exe: None,
            verbosity: 0,
            result_cap: None,
            start_records: None,
        }
    }

    /// The largest message the agent reads from a pack's process: four
    /// times the result cap (room for escaping and details) plus 1 MiB,
    /// at most the protocol's own limit. A longer frame is refused from its
    /// length, before it is read, as an invalid message.
    pub fn frame_limit(&self) -> usize {
        self.result_cap.map_or(MAX_FRAME_BYTES, |cap| {
            cap.saturating_mul(4)
                .saturating_add(MIB as usize)
                .min(MAX_FRAME_BYTES)
        })
    }

    /// The settings of the pack at `path` if it runs isolated, `None` if it
    /// runs in-process.
    pub fn settings_for(&self, path: &Path) -> Option<PackSettings> {
        let path = canonical(path);
        let entry = self
            .packs
            .iter()
            .find(|(listed, _)| *listed == path)
            .map(|(_, pack)| pack);
        let isolate = match entry {
            Some(pack) => pack.isolate || self.all,
            None => self.all,
        };
        isolate.then(|| PackSettings {
            capabilities: entry.map(|p| p.capabilities.clone()).unwrap_or_default(),
            memory_limit: entry
                .and_then(|p| p.memory_limit_mb)
                .map(|mb| mb.saturating_mul(MIB))
                .or(self.memory_limit),
            require_sandbox: self.require_sandbox,
            env: entry.map(|p| p.env.clone()).unwrap_or_default(),
        })
    }

    /// True when no pack can run isolated under this policy.
    pub fn is_off(&self) -> bool {
        !self.all && self.packs.iter().all(|(_, pack)| !pack.isolate)
    }
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<IsolationConfig, String> {
        toml::from_str(text).map_err(|e| e.message().to_owned())
    }

    #[test]
    fn a_listed_pack_is_isolated_with_its_capabilities_and_limit() {
        let config = parse(
            "memory_limit_mb = 64\n[packs.\"/p/a.so\"]\ncapabilities = [\"network\", \"processes\"]\n[packs.\"/p/b.so\"]\nmemory_limit_mb = 8\n[packs.\"/p/c.so\"]\nisolate = false\n",
        )
        .unwrap();
        let policy = IsolationPolicy::new(Some(&config), false);
        assert_eq!(
            policy.settings_for(Path::new("/p/a.so")),
            Some(PackSettings {
                capabilities: vec![Capability::Network, Capability::Processes],
                memory_limit: Some(64 * MIB),
                require_sandbox: RequireSandbox::No,
                env: Vec::new(),
            })
        );
        assert_eq!(
            policy
                .settings_for(Path::new("/p/b.so"))
                .unwrap()
                .memory_limit,
            Some(8 * MIB)
        );
        assert_eq!(policy.settings_for(Path::new("/p/c.so")), None);
        assert_eq!(policy.settings_for(Path::new("/p/other.so")), None);
        assert!(!policy.is_off());
    }

    #[test]
    fn the_flag_isolates_every_pack_even_one_listed_as_in_process() {
        let config = parse("[packs.\"/p/c.so\"]\nisolate = false\n").unwrap();
        let policy = IsolationPolicy::new(Some(&config), true);
        assert!(policy.settings_for(Path::new("/p/c.so")).is_some());
        assert!(policy.settings_for(Path::new("/p/other.so")).is_some());
        assert!(IsolationPolicy::new(None, false).is_off());
    }

    #[test]
    fn unknown_capabilities_and_keys_are_refused() {
        assert_eq!(
            parse("[packs.\"a.so\"]\ncapabilities = [\"root\"]\n").unwrap_err(),
            "unknown variant `root`, expected one of `network`, `write-anywhere`, `processes`"
        );
        assert!(
            parse("isolate_all = true\n")
                .unwrap_err()
                .contains("unknown field")
        );
    }

    #[test]
    fn require_sandbox_takes_a_boolean_or_full() {
        for (text, require) in [
            ("false", RequireSandbox::No),
            ("true", RequireSandbox::Confined),
            ("\"full\"", RequireSandbox::Full),
        ] {
            let config = parse(&format!("require_sandbox = {text}\n")).unwrap();
            assert_eq!(config.require_sandbox, require, "{text}");
        }
        assert_eq!(
            parse("require_sandbox = \"namespaces\"\n").unwrap_err(),
            "invalid value: string \"namespaces\", expected true, false or \"full\""
        );
    }

    #[test]
    fn namespaces_are_used_unless_turned_off() {
        assert!(!IsolationPolicy::new(None, false).without_namespaces);
        assert!(!IsolationPolicy::new(Some(&parse("").unwrap()), false).without_namespaces);
        let off = parse("namespaces = false\n").unwrap();
        assert!(IsolationPolicy::new(Some(&off), false).without_namespaces);
    }

    #[test]
    fn a_pack_is_granted_variables_by_name() {
        let config = parse("[packs.\"/p/a.so\"]\nenv = [\"WEATHER_API_KEY\"]\n").unwrap();
        let policy = IsolationPolicy::new(Some(&config), false);
        assert_eq!(
            policy.settings_for(Path::new("/p/a.so")).unwrap().env,
            ["WEATHER_API_KEY"]
        );
    }

    #[test]
    fn the_environment_variable_takes_1_or_true() {
        for (value, isolate) in [
            ("1", true),
            ("true", true),
            ("TRUE", true),
            ("0", false),
            ("", false),
        ] {
            assert_eq!(
                env_asks_for_isolation(Some(OsStr::new(value))),
                isolate,
                "{value}"
            );
        }
        assert!(!env_asks_for_isolation(None));
    }
}
