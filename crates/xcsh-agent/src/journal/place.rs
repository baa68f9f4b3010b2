//! Where a session's journal goes. A path inside the working directory
//! (the default `.xcsh/journal.jsonl`, or a relative `[journal] path`) is
//! used only when the user trusts that directory (`xcsh trust`): an
//! untrusted checkout may ship `.xcsh/` with anything in it, so there the
//! journal goes to `journals/` in the user's xcsh data directory instead,
//! one file per working directory (named after it and the SHA-256 of its
//! canonical path), so `xcsh journal` run in the same directory finds it.
//! An absolute `[journal] path` is the user's own choice and is used as
//! given.

use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};
use xcsh_sources::config::JournalConfig;

/// Where the journal goes unless configured otherwise, relative to the
/// working directory.
pub const DEFAULT_JOURNAL: &str = ".xcsh/journal.jsonl";

/// The directory of redirected journals, in the user's xcsh data
/// directory.
pub const USER_JOURNALS_DIR: &str = "journals";

/// Where a session's journal goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The user's config turns the journal off.
    Off,
    /// The file the config names (or the default), in a trusted working
    /// directory or at an absolute path.
    Named(PathBuf),
    /// The working directory is not trusted: the file in the user's data
    /// directory that stands for it.
    Redirected {
        /// The journal file in the user's data directory.
        path: PathBuf,
        /// The untrusted working directory.
        cwd: PathBuf,
    },
    /// The configured path lies in the working directory, where isolated
    /// packs may write (outside `.xcsh/`): the file in the user's data
    /// directory that stands for it.
    Moved {
        /// The journal file in the user's data directory.
        path: PathBuf,
        /// The path the config named.
        configured: PathBuf,
    },
    /// The working directory is not trusted and there is no user data
    /// directory to keep its journal in: none is kept.
    Nowhere {
        /// The untrusted working directory.
        cwd: PathBuf,
    },
}

impl Place {
    /// Where the journal of a session in `cwd` goes: `config` is the
    /// user's `[journal]` table, `trusted` whether the user trusts `cwd`,
    /// `user_data` the user's xcsh data directory.
    pub fn of(
        config: Option<&JournalConfig>,
        cwd: &Path,
        trusted: bool,
        user_data: Option<&Path>,
    ) -> Self {
        let config = config.cloned().unwrap_or_default();
        if config.enabled == Some(false) {
            return Self::Off;
        }
        let path = config
            .path
            .unwrap_or_else(|| PathBuf::from(DEFAULT_JOURNAL));
        let canonical = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        if trusted || path.is_absolute() {
            let named = cwd.join(&path);
            // Isolated packs may write the working directory, all of it
            // but `.xcsh/` (and `.git/`): a journal there could be
            // rewritten by one. It goes to the user's data directory.
            let resolved = resolved(&named);
            let inside =
                resolved.starts_with(&canonical) && !resolved.starts_with(canonical.join(".xcsh"));
            if !inside {
                return Self::Named(named);
            }
            return match user_data {
                Some(data) => Self::Moved {
                    path: data.join(USER_JOURNALS_DIR).join(file_name(&canonical)),
                    configured: named,
                },
                None => Self::Nowhere { cwd: canonical },
            };
        }
        match user_data {
            Some(data) => Self::Redirected {
                path: data.join(USER_JOURNALS_DIR).join(file_name(&canonical)),
                cwd: canonical,
            },
            None => Self::Nowhere { cwd: canonical },
        }
    }

    /// The journal file, if one is kept.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Named(path) | Self::Redirected { path, .. } | Self::Moved { path, .. } => {
                Some(path)
            }
            Self::Off | Self::Nowhere { .. } => None,
        }
    }

    /// The one line a session says about where its journal went, when it
    /// is not where the config puts it.
    pub fn notice(&self) -> Option<String> {
        match self {
            Self::Redirected { path, cwd } => Some(format!(
                "{} is not a trusted directory, so nothing is written in it: this session's journal is kept in {} (xcsh journal there shows it; xcsh trust keeps it in the project)",
                xcsh_text::escape::path(cwd),
                xcsh_text::escape::path(path)
            )),
            Self::Moved { path, configured } => Some(format!(
                "the journal {} would lie in the working directory, where isolated packs may write: this session's journal is kept in {} instead (put [journal] path under .xcsh/ or outside the project)",
                xcsh_text::escape::path(configured),
                xcsh_text::escape::path(path)
            )),
            Self::Nowhere { cwd } => Some(format!(
                "{} is not a trusted directory, so nothing is written in it, and there is no user data directory: this session keeps no journal",
                xcsh_text::escape::path(cwd)
            )),
            Self::Off | Self::Named(_) => None,
        }
    }
}

/// `path` with its deepest existing directory canonical (links followed):
/// where a file there would be.
fn resolved(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(found) = std::fs::canonicalize(at) {
            return rest
                .iter()
                .rev()
                .fold(found, |path, part: &&std::ffi::OsStr| path.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                at = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// `{name}-{hash}.jsonl`: the last component of the canonical directory
/// `cwd` (letters, digits, `.`, `_` and `-`; others become `_`; at most 40
/// characters) and the first 16 bytes of the SHA-256 of its path, in hex.
fn file_name(cwd: &Path) -> String {
    let name: String = cwd
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    let digest = Sha256::digest(cwd.as_os_str().as_encoded_bytes());
    let hash: String = hex::encode(&digest[..16]);
    let name = name.trim_start_matches('.');
    if name.is_empty() {
        format!("{hash}.jsonl")
    } else {
        format!("{name}-{hash}.jsonl")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(path: Option<&str>, enabled: Option<bool>) -> JournalConfig {
        JournalConfig {
            path: path.map(PathBuf::from),
            enabled,
        }
    }

    #[test]
    fn a_trusted_directory_keeps_its_journal_in_the_project() {
        let cwd = Path::new("/work/project");
        assert_eq!(
            Place::of(None, cwd, true, Some(Path::new("/data"))),
            Place::Named(cwd.join(DEFAULT_JOURNAL))
        );
        assert_eq!(
            Place::of(None, cwd, true, None).notice(),
            None,
            "nothing to say where the config puts it"
        );
    }

    #[test]
    fn an_untrusted_directory_sends_it_to_the_users_data_directory() {
        let cwd = tempfile::tempdir().unwrap();
        let canonical = std::fs::canonicalize(cwd.path()).unwrap();
        let place = Place::of(None, cwd.path(), false, Some(Path::new("/data/xcsh")));
        let Place::Redirected { path, cwd: named } = &place else {
            panic!("{place:?}");
        };
        assert_eq!(named, &canonical);
        assert_eq!(path.parent().unwrap(), Path::new("/data/xcsh/journals"));
        let file = path.file_name().unwrap().to_str().unwrap();
        let stem = canonical.file_name().unwrap().to_str().unwrap();
        assert!(
            file.starts_with(&format!("{}-", stem.trim_start_matches('.'))),
            "{file}"
        );
        assert!(file.ends_with(".jsonl") && file.len() > 32 + 6, "{file}");
        assert_eq!(
            place.notice().unwrap(),
            format!(
                "{} is not a trusted directory, so nothing is written in it: this session's journal is kept in {} (xcsh journal there shows it; xcsh trust keeps it in the project)",
                canonical.display(),
                path.display()
            )
        );
        // The same directory, named another way, has the same journal.
        let again = Place::of(
            None,
            &cwd.path().join("."),
            false,
            Some(Path::new("/data/xcsh")),
        );
        assert_eq!(again, place);
    }

    #[test]
    fn a_relative_configured_path_is_redirected_too_an_absolute_one_is_not() {
        let cwd = Path::new("/nonexistent/checkout");
        let data = Some(Path::new("/data/xcsh"));
        let relative = config(Some("logs/journal.jsonl"), None);
        assert!(matches!(
            Place::of(Some(&relative), cwd, false, data),
            Place::Redirected { .. }
        ));
        let absolute = config(Some("/var/log/xcsh.jsonl"), Some(true));
        assert_eq!(
            Place::of(Some(&absolute), cwd, false, data),
            Place::Named(PathBuf::from("/var/log/xcsh.jsonl"))
        );
        assert_eq!(
            Place::of(Some(&config(None, Some(false))), cwd, false, data),
            Place::Off
        );
    }

    #[test]
    fn a_configured_path_where_packs_may_write_is_moved_and_said() {
        let cwd = tempfile::tempdir().unwrap();
        let canonical = std::fs::canonicalize(cwd.path()).unwrap();
        let data = Some(Path::new("/data/xcsh"));
        for configured in ["logs/journal.jsonl", "./j.jsonl"] {
            let place = Place::of(
                Some(&config(Some(configured), None)),
                cwd.path(),
                true,
                data,
            );
            let Place::Moved { path, .. } = &place else {
                panic!("{place:?}");
            };
            assert_eq!(path.parent().unwrap(), Path::new("/data/xcsh/journals"));
            assert_eq!(
                place.notice().unwrap(),
                format!(
                    "the journal {} would lie in the working directory, where isolated packs may write: this session's journal is kept in {} instead (put [journal] path under .xcsh/ or outside the project)",
                    cwd.path().join(configured).display(),
                    path.display()
                )
            );
        }
        let absolute = canonical.join("j.jsonl");
        assert!(matches!(
            Place::of(
                Some(&config(absolute.to_str(), None)),
                cwd.path(),
                false,
                data
            ),
            Place::Moved { .. }
        ));
        // `.xcsh/` is kept read-only for every isolated pack.
        assert_eq!(
            Place::of(
                Some(&config(Some(".xcsh/j.jsonl"), None)),
                cwd.path(),
                true,
                data
            ),
            Place::Named(cwd.path().join(".xcsh/j.jsonl"))
        );
    }

    #[test]
    fn without_a_data_directory_an_untrusted_session_keeps_none() {
        let cwd = Path::new("/nonexistent/checkout");
        let place = Place::of(None, cwd, false, None);
        assert_eq!(place.path(), None);
        assert_eq!(
            place.notice().unwrap(),
            "/nonexistent/checkout is not a trusted directory, so nothing is written in it, and there is no user data directory: this session keeps no journal"
        );
    }

    #[test]
    fn directories_with_the_same_name_have_different_journals() {
        assert_ne!(
            file_name(Path::new("/a/repo")),
            file_name(Path::new("/b/repo"))
        );
        assert!(file_name(Path::new("/")).ends_with(".jsonl"));
        assert!(file_name(Path::new("/x/a b\nc")).starts_with("a_b_c-"));
    }
}
