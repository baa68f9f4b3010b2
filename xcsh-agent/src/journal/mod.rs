//! The journal: every push, every resolve and every person's answer of a
//! session, one JSON line each, appended to a file (default
//! `.xcsh/journal.jsonl` in the working directory; the user's config's
//! `[journal]` moves it or turns it off). [`writer`] writes it, each entry
//! sealed to the one before ([`chain`]), [`verify`] checks the
//! chain (the binary's `xcsh journal` shows it, `--verify` runs this). The file is opened only as a regular file of
//! the user's own, never through a link ([`open`]). A journal that cannot
//! be written is a warning: the session goes on, and no action is lost.

pub mod chain;
pub mod open;
pub mod verify;
pub mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use xcsh_sources::Settings;
use xcsh_sources::config::JournalConfig;

use crate::agent::{Agent, ToolSource};
use writer::{FileJournal, PackOf};

/// Where the journal goes unless configured otherwise, relative to the
/// working directory.
pub const DEFAULT_JOURNAL: &str = ".xcsh/journal.jsonl";

/// The journal file `config` names for a session in `cwd`; `None` when
/// it is turned off.
pub fn path(config: Option<&JournalConfig>, cwd: &Path) -> Option<PathBuf> {
    let config = config.cloned().unwrap_or_default();
    if config.enabled == Some(false) {
        return None;
    }
    let path = config
        .path
        .unwrap_or_else(|| PathBuf::from(DEFAULT_JOURNAL));
    Some(cwd.join(path))
}

/// Gives `agent`'s session a journal, unless the user turned it off.
pub fn install(agent: &Agent, settings: &Settings, cwd: &Path, user: Option<&Path>) {
    let Some(path) = path(settings.journal.as_ref(), cwd) else {
        tracing::debug!("the journal is turned off");
        return;
    };
    let sources = agent.tool_sources();
    let packs: PackOf = agent
        .tool_names()
        .into_iter()
        .map(|tool| {
            let pack = sources
                .get(tool.as_str())
                .and_then(ToolSource::pack)
                .map(|(name, version)| (name.to_owned(), version.to_owned()));
            (tool, pack)
        })
        .collect();
    agent
        .session
        .set_journal(Arc::new(FileJournal::new(path, packs, key(user))));
}

/// The user's journal key from the xcsh data directory `user` (created
/// there when missing); without one (no data directory, or a key file
/// that cannot be used: said as a warning) the chain is unkeyed.
pub fn key(user: Option<&Path>) -> chain::Key {
    let Some(data) = user else {
        return chain::Key::none();
    };
    chain::Key::of_user(data, true).unwrap_or_else(|error| {
        tracing::warn!("{error}; the journal's entries are chained without a key");
        chain::Key::none()
    })
}
