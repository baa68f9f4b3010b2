//! The journal: every push, every resolve and every person's answer of a
//! session, one JSON line each, appended to a file (default
//! `.xcsh/journal.jsonl` in the working directory once the user trusts
//! it, a file of the user's data directory until then ([`place`]); the
//! user's config's `[journal]` moves it or turns it off). [`writer`] writes it, each entry
//! sealed to the one before ([`chain`]), [`verify`] checks the
//! chain (the binary's `xcsh journal` shows it, `--verify` runs this). The file is opened only as a regular file of
//! the user's own, never through a link ([`open`]). A journal that cannot
//! be written is a warning: the session goes on, and no action is lost.

pub mod anchor;
pub mod chain;
pub mod held;
pub mod open;
pub mod place;
pub mod verify;
pub mod writer;

use std::path::Path;
use std::sync::Arc;

use xcsh_sources::Settings;

use crate::agent::{Agent, ToolSource};
use writer::{FileJournal, PackOf};

pub use place::{DEFAULT_JOURNAL, Place};

/// Gives `agent`'s session a journal, unless the user turned it off,
/// where [`Place::of`] puts it; a journal kept outside an untrusted
/// working directory says so once, on its first entry.
pub fn install(agent: &Agent, settings: &Settings, cwd: &Path, user: Option<&Path>) {
    let place = Place::of(
        settings.journal.as_ref(),
        cwd,
        settings.project.dir_trusted,
        user,
    );
    let notice = place.notice();
    let Some(path) = place.path().map(Path::to_path_buf) else {
        if let Some(notice) = notice {
            tracing::warn!("{notice}");
        }
        tracing::debug!("no journal");
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
    agent.session.set_journal(Arc::new(
        FileJournal::new(path, packs, key(user))
            .with_notice(notice)
            .with_anchors(user.map(|data| data.join(anchor::ANCHORS_DIR))),
    ));
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
