//! How a session runs pack code: which files may be opened, how long a
//! call may take, how large a result may be and which packs run isolated,
//! from the command line, the user's config and a trusted project's.

use std::time::Duration;

use xcsh_core::{CallLimits, DEFAULT_MAX_RESULT_BYTES};
use xcsh_isolate::IsolationPolicy;
use xcsh_loader::TrustPolicy;

use crate::collect::Settings;

/// How long a tool call, an apply or a reject may run unless configured
/// otherwise.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(300);

/// How a session runs pack code.
#[derive(Clone, Debug)]
pub struct RunPolicy {
    /// Which pack files may be opened.
    pub trust: TrustPolicy,
    /// When to give up on a tool call, an apply or a reject; `None` never
    /// does.
    pub tool_timeout: Option<Duration>,
    /// Whether `ast_edit` may work outside the working directory (the
    /// user's `--allow-outside-root`; never from a config file).
    pub allow_outside_root: bool,
    /// The most bytes of one result passed on; `None`: no cap.
    pub max_result_bytes: Option<usize>,
    /// Which packs run in a process of their own.
    pub isolation: IsolationPolicy,
    /// The check of in-process libraries not seen before, in a child
    /// process (`None`: opened here directly).
    pub first_seen: Option<xcsh_loader::FirstSeen>,
    /// Each pack's configuration table (`[packs.NAME]`).
    pub pack_configs: crate::pack_tables::PackTables,
}

impl Default for RunPolicy {
    fn default() -> Self {
        Self {
            trust: TrustPolicy::new(),
            tool_timeout: Some(DEFAULT_TOOL_TIMEOUT),
            allow_outside_root: false,
            max_result_bytes: Some(DEFAULT_MAX_RESULT_BYTES),
            isolation: IsolationPolicy::default(),
            first_seen: None,
            pack_configs: Default::default(),
        }
    }
}

impl RunPolicy {
    /// What the session tells its packs: `--allow-outside-root` and their
    /// configuration tables.
    pub fn pack_options(&self) -> xcsh_core::PackOptions {
        xcsh_core::PackOptions {
            allow_outside_root: self.allow_outside_root,
            configs: self.pack_configs.clone(),
        }
    }

    /// The policy from the command line's timeout (which wins), the user's
    /// config and a trusted project's settings, which only tighten: a
    /// project's timeout can only lower the limit, its allow-list only
    /// narrow the user's, and its packs must still have the hashes
    /// recorded by `xcsh trust`. A timeout of zero means no limit.
    pub fn new(flag_timeout: Option<Duration>, settings: &Settings) -> Self {
        let mut timeout = flag_timeout
            .or(settings.tool_timeout)
            .unwrap_or(DEFAULT_TOOL_TIMEOUT);
        if flag_timeout.is_none()
            && let Some(project) = settings.project.tool_timeout
        {
            timeout = tighter(timeout, project);
        }
        let mut trust = TrustPolicy::new();
        if let Some(allow) = &settings.allow_list {
            trust = trust.with_allow_list(allow.iter().cloned());
        }
        if let Some((config, allow)) = &settings.project.allow_list {
            trust = trust.with_project_allow_list(config.clone(), allow.iter().cloned());
        }
        if let Some((dir, record)) = &settings.project.trusted {
            for (pack, hash) in &record.packs {
                trust = trust.with_trusted_pin(pack, hash, dir);
            }
        }
        Self {
            trust,
            tool_timeout: (!timeout.is_zero()).then_some(timeout),
            allow_outside_root: false,
            max_result_bytes: Some(DEFAULT_MAX_RESULT_BYTES),
            isolation: IsolationPolicy {
                result_cap: Some(DEFAULT_MAX_RESULT_BYTES),
                ..IsolationPolicy::new(settings.isolation.as_ref(), false)
            },
            first_seen: None,
            pack_configs: settings.packs.clone(),
        }
    }

    /// The policy with the command line's result cap, if given (0: no cap).
    pub fn with_max_result_bytes(mut self, flag: Option<usize>) -> Self {
        if let Some(bytes) = flag {
            self.max_result_bytes = (bytes != 0).then_some(bytes);
            self.isolation.result_cap = self.max_result_bytes;
        }
        self
    }

    /// What every call of the session may take.
    pub fn limits(&self) -> CallLimits {
        CallLimits {
            time: self.tool_timeout,
            result_bytes: self.max_result_bytes,
        }
    }
}

/// The lower of two limits, where zero is no limit.
fn tighter(a: Duration, b: Duration) -> Duration {
    match (a.is_zero(), b.is_zero()) {
        (true, _) => b,
        (_, true) => a,
        _ => a.min(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_over_the_config_and_zero_means_no_limit() {
        let settings = Settings {
            tool_timeout: Some(Duration::from_secs(5)),
            ..Settings::default()
        };
        assert_eq!(
            RunPolicy::new(None, &Settings::default()).tool_timeout,
            Some(DEFAULT_TOOL_TIMEOUT)
        );
        assert_eq!(
            RunPolicy::new(None, &settings).tool_timeout,
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            RunPolicy::new(Some(Duration::from_secs(1)), &settings).tool_timeout,
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            RunPolicy::new(Some(Duration::ZERO), &settings).tool_timeout,
            None
        );
    }

    #[test]
    fn a_project_timeout_only_lowers_the_limit() {
        let with = |user: Option<u64>, project: u64| Settings {
            tool_timeout: user.map(Duration::from_secs),
            project: crate::collect::ProjectSettings {
                tool_timeout: Some(Duration::from_secs(project)),
                ..Default::default()
            },
            ..Settings::default()
        };
        let limit = |flag: Option<u64>, settings: &Settings| {
            RunPolicy::new(flag.map(Duration::from_secs), settings).tool_timeout
        };
        let secs = |s| Some(Duration::from_secs(s));
        // Lower than the default or the user's: taken.
        assert_eq!(limit(None, &with(None, 10)), secs(10));
        assert_eq!(limit(None, &with(Some(60), 10)), secs(10));
        // Higher, or "never": the user's limit stays.
        assert_eq!(limit(None, &with(None, 3600)), Some(DEFAULT_TOOL_TIMEOUT));
        assert_eq!(limit(None, &with(Some(60), 0)), secs(60));
        // The user said "never": a project may still set a limit.
        assert_eq!(limit(None, &with(Some(0), 30)), secs(30));
        // The user's flag is this run's choice and wins.
        assert_eq!(limit(Some(900), &with(None, 10)), secs(900));
    }
}
