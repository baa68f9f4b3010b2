//! The environment an isolated pack's process gets: not the agent's (which
//! holds the user's tokens and keys, `*_API_KEY`, `SSH_AUTH_SOCK`, …), but
//! the few variables programs need to behave, and those the user's config
//! grants the pack by name (`env = ["WEATHER_API_KEY"]`).

use std::ffi::OsString;

/// Passed to every isolated pack where the agent has them: where programs
/// and home are, who the user is, the language, the terminal and the
/// temporary directory, and Rust's backtrace switch.
pub const ALWAYS: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TERM",
    "TZ",
    "TMPDIR",
    "RUST_BACKTRACE",
];

/// The variables of `from` an isolated pack granted `granted` gets: those
/// of [`ALWAYS`], every `LC_*`, and the granted names.
pub fn passed(
    from: impl IntoIterator<Item = (OsString, OsString)>,
    granted: &[String],
) -> Vec<(OsString, OsString)> {
    from.into_iter()
        .filter(|(name, _)| {
            name.to_str().is_some_and(|name| {
                ALWAYS.contains(&name)
                    || name.starts_with("LC_")
                    || granted.iter().any(|g| g == name)
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_basics_and_what_is_granted_pass() {
        let agent: Vec<(OsString, OsString)> = [
            ("PATH", "/usr/bin"),
            ("LC_ALL", "C.UTF-8"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("SSH_AUTH_SOCK", "/tmp/ssh-x/agent.1"),
            ("WEATHER_API_KEY", "w"),
        ]
        .into_iter()
        .map(|(n, v)| (n.into(), v.into()))
        .collect();
        let names = |vars: Vec<(OsString, OsString)>| -> Vec<String> {
            vars.into_iter()
                .map(|(n, _)| n.to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names(passed(agent.clone(), &[])), ["PATH", "LC_ALL"]);
        assert_eq!(
            names(passed(agent, &["WEATHER_API_KEY".to_owned()])),
            ["PATH", "LC_ALL", "WEATHER_API_KEY"]
        );
    }
}
