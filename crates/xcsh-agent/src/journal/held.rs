//! The journal file as a session holds it: open from the first entry to
//! the session's end, and locked in turns.
//!
//! A turn begins with the first entry after the last one ended: the
//! exclusive lock on the file, one `fstat` (its length, so another
//! session's entries are chained onto; and whether the file is still the
//! journal: one removed, or replaced by a rename, has no name left, and
//! the file at the path is opened and checked again). Every entry of the
//! turn is then one `write`. [`SYNC_EVERY`] after the turn began, a
//! flusher thread ends it: it records the last entry in the journal's
//! anchor ([`anchor`](super::anchor)), lets go of the lock (another
//! session sharing the journal waits at most that long), and flushes the
//! journal, then the anchor, to disk if a decision was written. The
//! session's end does the same at once. So the checks of the file (its
//! type, owner and single name) hold from a turn's start: an entry
//! written in a turn goes to the file the turn began with.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::anchor::Anchor;
use super::chain::{self, Key, Link};
use super::open;

/// How long a turn lasts: the lock is held, the anchor not yet written
/// and decisions not yet flushed to disk for at most this long after the
/// first entry of a turn (plus the time the flush takes). Every entry is
/// written to the file (the kernel's cache) before it is recorded, so a
/// crash of xcsh loses no entry, but its anchor may be this far behind; a
/// crash of the machine (power loss) may lose the decisions of the last
/// `SYNC_EVERY` plus the time the flush takes.
pub const SYNC_EVERY: Duration = Duration::from_millis(100);

/// A session's hold on its journal, shared with the flusher thread.
#[derive(Debug, Default)]
pub struct Held(Arc<Mutex<State>>);

/// What the session holds.
#[derive(Debug, Default)]
struct State {
    /// The journal, open since the first entry (opened again when it no
    /// longer has a name).
    file: Option<File>,
    /// While a turn lasts: the file's length and its last entry's link
    /// (`None`: empty, or its last line is not a sealed entry).
    turn: Option<(u64, Option<Link>)>,
    /// The length and link after this session's last entry, so a new
    /// turn reads the file's tail again only when another session
    /// appended since.
    mine: Option<(u64, Link)>,
    /// The journal's anchor, open since the first entry.
    anchor: Option<Anchor>,
    /// The link the anchor has yet to record.
    anchor_due: Option<Link>,
    /// A decision was written since the last flush.
    sync_due: bool,
    /// A flusher thread is on its way to end the turn.
    ticking: bool,
}

impl Held {
    /// Seals `fields` after the journal's last entry and appends it to
    /// the journal at `path`, anchored at what `anchor` says once the
    /// journal is open (`None`: it has no anchor); `durable`: flushed to
    /// disk when the turn ends. An anchor that cannot be opened is a
    /// warning, tried again at the next turn: the entry is written.
    ///
    /// # Errors
    ///
    /// The journal cannot be opened, locked or written, or it is not a
    /// regular file of the user's with one name.
    pub fn append(
        &self,
        path: &Path,
        anchor: impl FnOnce() -> Option<PathBuf>,
        key: &Key,
        fields: &str,
        durable: bool,
    ) -> std::io::Result<()> {
        let mut state = self.state();
        if state.turn.is_none() {
            state.begin_turn(path)?;
            if state.anchor.is_none()
                && let Some(anchor) = anchor()
            {
                match Anchor::open(&anchor) {
                    Ok(opened) => state.anchor = Some(opened),
                    Err(error) => tracing::warn!(
                        "cannot open the journal's anchor {}: {error}; `xcsh journal --verify` cannot tell whether entries are cut off its end",
                        anchor.display()
                    ),
                }
            }
        }
        let State {
            file, turn, mine, ..
        } = &mut *state;
        let (file, (length, previous)) = (
            file.as_ref().expect("a turn has its file"),
            turn.as_mut().expect("the turn began above"),
        );
        let (line, link) = chain::seal(key, previous.as_ref(), fields);
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        (&*file).write_all(&bytes)?;
        *length += bytes.len() as u64;
        *previous = Some(link.clone());
        *mine = Some((*length, link.clone()));
        state.anchor_due = Some(link);
        state.sync_due |= durable;
        if !self.start_flusher(&mut state) {
            // No thread to end the turn later: end it now.
            let flush = state.end_turn();
            drop(state);
            flush.run();
        }
        Ok(())
    }

    /// Ends the turn now (the session's end).
    pub fn end_turn(&self) {
        let flush = self.state().end_turn();
        flush.run();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Has a thread end the turn [`SYNC_EVERY`] from now, unless one is
    /// on its way; false when no thread could be started.
    fn start_flusher(&self, state: &mut State) -> bool {
        if state.ticking {
            return true;
        }
        let shared = Arc::clone(&self.0);
        let started = std::thread::Builder::new()
            .name("journal-flush".into())
            .spawn(move || {
                std::thread::sleep(SYNC_EVERY);
                let flush = {
                    let mut state = shared.lock().unwrap_or_else(|p| p.into_inner());
                    state.ticking = false;
                    state.end_turn()
                };
                flush.run();
            });
        state.ticking = started.is_ok();
        state.ticking
    }
}

impl State {
    /// Opens the journal if need be, takes its lock and finds its end.
    fn begin_turn(&mut self, path: &Path) -> std::io::Result<()> {
        let mut file = match self.file.take() {
            Some(file) => file,
            None => open::for_append(path)?,
        };
        file.lock()?;
        let mut metadata = file.metadata()?;
        if is_gone(&metadata) {
            drop(file);
            file = open::for_append(path)?;
            file.lock()?;
            metadata = file.metadata()?;
        }
        let found = open::check(&metadata).and_then(|()| {
            let length = metadata.len();
            let previous = match &self.mine {
                Some((known, link)) if *known == length => Some(link.clone()),
                _ => last_link(&file, length)?,
            };
            Ok((length, previous))
        });
        match found {
            Ok(turn) => {
                self.turn = Some(turn);
                self.file = Some(file);
                Ok(())
            }
            Err(error) => {
                let _ = file.unlock();
                self.file = Some(file);
                Err(error)
            }
        }
    }

    /// Ends the turn: the anchor records the last entry, the lock is let
    /// go; what is left to flush to disk is returned, to run without the
    /// state held.
    fn end_turn(&mut self) -> Flush {
        // Recorded under the journal's lock: sessions sharing a journal
        // record their anchors in the order of their entries.
        if let Some(link) = self.anchor_due.take()
            && let Some(anchor) = &mut self.anchor
            && let Err(error) = anchor.record(&link)
        {
            tracing::warn!("cannot write the journal's anchor: {error}");
        }
        if self.turn.take().is_some()
            && let Some(file) = &self.file
            && let Err(error) = file.unlock()
        {
            tracing::warn!("cannot unlock the journal: {error}");
        }
        if !std::mem::take(&mut self.sync_due) {
            return Flush::default();
        }
        let copy = |file: Option<&File>| file.and_then(|file| file.try_clone().ok());
        Flush {
            journal: copy(self.file.as_ref()),
            anchor: copy(self.anchor.as_ref().map(Anchor::file)),
        }
    }
}

/// Descriptors to flush to disk, the journal's first.
#[derive(Default)]
struct Flush {
    journal: Option<File>,
    anchor: Option<File>,
}

impl Flush {
    fn run(self) {
        let flushed = self
            .journal
            .iter()
            .chain(&self.anchor)
            .try_for_each(File::sync_data);
        if let Err(error) = flushed {
            tracing::warn!("cannot flush the journal to disk: {error}");
        }
    }
}

/// The open file has no name left: it was removed, or another file was
/// renamed over it.
#[cfg(unix)]
fn is_gone(metadata: &std::fs::Metadata) -> bool {
    std::os::unix::fs::MetadataExt::nlink(metadata) == 0
}

#[cfg(not(unix))]
fn is_gone(_metadata: &std::fs::Metadata) -> bool {
    false
}

/// The link of the last entry of the open journal `file`, `length` bytes
/// long: `None` when it is empty, or when its last line is not a sealed
/// entry (a new chain starts there, and `--verify` reports that line).
/// The tail is read a few KiB first, more only for a longer last line, up
/// to [`open::MAX_ENTRY_BYTES`].
fn last_link(file: &File, length: u64) -> std::io::Result<Option<Link>> {
    let most = length.min(open::MAX_ENTRY_BYTES as u64 + 1);
    let mut window = most.min(4096);
    while window > 0 {
        let mut tail = vec![0; usize::try_from(window).unwrap_or(open::MAX_ENTRY_BYTES)];
        read_exact_at(file, &mut tail, length - window)?;
        let text = tail.strip_suffix(b"\n").unwrap_or(&tail);
        let start = match text.iter().rposition(|&b| b == b'\n') {
            Some(at) => at + 1,
            None if window == length => 0,
            None if window < most => {
                window = most.min(window * 16);
                continue;
            }
            None => return Ok(None),
        };
        return Ok(std::str::from_utf8(&text[start..])
            .ok()
            .and_then(chain::unseal)
            .map(|(_, link)| link));
    }
    Ok(None)
}

#[cfg(unix)]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

#[cfg(not(unix))]
fn read_exact_at(file: &File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Read as _, Seek as _};
    let mut file = file;
    file.seek(std::io::SeekFrom::Start(offset))?;
    file.read_exact(buffer)
}
