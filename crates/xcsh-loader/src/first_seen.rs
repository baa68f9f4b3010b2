//! A library not seen before is opened first in a child process.
//!
//! `dlopen` runs a library's constructors before any check can look at
//! them, and a constructor that aborts, or a factory that crashes, takes
//! the process that opened it along. So a pack library this user has not
//! opened before is opened first by a [`Probe`] (the agent runs it in a
//! child process); only when that child survived is it opened in-process.
//! What the child did is remembered in a cache directory, keyed by the
//! SHA-256 of the file, and the file's identity (device, inode, size,
//! modification and change times) is remembered beside it, so a start-up
//! that sees the same file again neither hashes it nor starts a child:
//! the check is paid once per build of a pack.
//!
//! The cache is two kinds of small files in one directory (created mode
//! 0700), each written whole (a new file renamed over the old):
//!
//! - `sha256-<hex>`: what opening a file with that SHA-256 did, one line:
//!   `loaded`, or `refused <cause>`;
//! - `file-<dev>-<ino>-<size>-<mtime>-<ctime>`: that file's SHA-256.
//!
//! A cache directory that is not the user's own, or that its group or
//! others can write, is not used (every new library is checked again, and
//! nothing is written there). A lie in the cache costs at most a crash of
//! the agent, which it exists to prevent, never running code the trust
//! policy refused: trust is checked before this.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::LoadError;
use crate::pack_file::PackFile;
use crate::private_cache::{PrivateCache, identity_key};

/// What opening a library in a child process did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// The child opened it and created its tools, and ended normally
    /// (whether or not the loader accepted the pack: the in-process load
    /// then reports the same cause itself).
    Survived,
    /// The child died opening it, e.g. `its load-time code killed the
    /// process (SIGABRT)`. Remembered: the library is skipped until it
    /// changes.
    Killed(String),
    /// The check did not finish (e.g. it ran past its time limit): the
    /// library is skipped this time, and checked again next time.
    Failed(String),
    /// No child could be started: the library is opened in-process, as
    /// before this check existed, with a warning.
    Unavailable(String),
}

/// Opens the library at a canonical path in a child process and says how
/// that went.
pub type Probe = Arc<dyn Fn(&Path) -> ProbeOutcome + Send + Sync>;

/// The first-seen check: a [`Probe`] and where its outcomes are kept.
#[derive(Clone)]
pub struct FirstSeen {
    cache: Option<PathBuf>,
    probe: Probe,
}

impl fmt::Debug for FirstSeen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FirstSeen")
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

/// The most bytes read from one cache file.
const MAX_ENTRY: u64 = 4096;

impl FirstSeen {
    /// A check running `probe` for libraries not in `cache` (a directory,
    /// created on first use; `None`: nothing remembered, every library is
    /// checked).
    pub fn new(cache: Option<PathBuf>, probe: Probe) -> Self {
        Self { cache, probe }
    }

    /// The cache directory, if it may be used: created if missing, owned
    /// by this user and writable by nobody else.
    fn usable_cache(&self) -> Option<PrivateCache> {
        PrivateCache::usable(self.cache.as_deref()?, "first-seen")
    }

    /// Checks the open pack `file`: from the cache, or by the probe.
    ///
    /// # Errors
    ///
    /// [`LoadError::FirstSeen`] when the probe's child died (now or when
    /// this build was first seen) or did not finish; [`LoadError::Unreadable`]
    /// when the file cannot be hashed.
    pub(crate) fn check(&self, file: &PackFile) -> Result<(), LoadError> {
        let cache = self.usable_cache();
        let identity = identity_key(file.metadata());
        if let (Some(cache), Some(identity)) = (&cache, &identity)
            && let Some(sha) = cache.read_line(identity, MAX_ENTRY)
            && let Some(result) = cache
                .read_line(&format!("sha256-{sha}"), MAX_ENTRY)
                .as_deref()
                .and_then(remembered)
        {
            return result;
        }
        let sha = file.sha256()?;
        let by_hash = format!("sha256-{sha}");
        if let Some(result) = cache
            .as_ref()
            .and_then(|cache| cache.read_line(&by_hash, MAX_ENTRY))
            .as_deref()
            .and_then(remembered)
        {
            remember_identity(cache.as_ref(), identity.as_deref(), &sha);
            return result;
        }
        let started = std::time::Instant::now();
        let outcome = (self.probe)(file.path());
        tracing::debug!(path = %file.path().display(), ?outcome, elapsed = ?started.elapsed(), "first-seen check done");
        let (line, result) = match outcome {
            ProbeOutcome::Survived => ("loaded".to_owned(), Ok(())),
            ProbeOutcome::Killed(cause) => (
                format!("refused {}", crate::error::one_line(&cause)),
                Err(LoadError::FirstSeen(cause)),
            ),
            ProbeOutcome::Failed(cause) => return Err(LoadError::FirstSeen(cause)),
            ProbeOutcome::Unavailable(why) => {
                tracing::warn!(
                    "cannot check {} in a child process first ({why}); opening it in this one",
                    file.path().display()
                );
                return Ok(());
            }
        };
        if let Some(cache) = &cache {
            cache.write(&by_hash, &format!("{line}\n"));
            remember_identity(Some(cache), identity.as_deref(), &sha);
        }
        result
    }
}

/// A remembered outcome line as the check's result; `None` for a line
/// this module does not write (then the library is checked again and
/// the entry replaced).
fn remembered(line: &str) -> Option<Result<(), LoadError>> {
    match line.strip_prefix("refused ") {
        Some(cause) => Some(Err(LoadError::FirstSeen(cause.to_owned()))),
        None => (line == "loaded").then_some(Ok(())),
    }
}

fn remember_identity(cache: Option<&PrivateCache>, identity: Option<&str>, sha: &str) {
    if let (Some(cache), Some(identity)) = (cache, identity) {
        cache.write(identity, &format!("{sha}\n"));
    }
}

#[cfg(test)]
mod tests;
