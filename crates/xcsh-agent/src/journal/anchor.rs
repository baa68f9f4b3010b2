//! Where each journal's chain last ended, kept apart from the journal in
//! the user's data directory (`journals/anchors/`, one small file per
//! journal, named by the SHA-256 of its canonical path): rewritten in
//! place after every entry, under the journal's lock ([`Anchor`]). A chain alone cannot show
//! entries cut off its end; with the anchor, `xcsh journal --verify`
//! reports a journal cut short, emptied, or swapped for another one
//! instead of vouching for it.

use std::fs::File;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use super::chain::Link;

/// The anchors' directory in the user's xcsh data directory.
pub const ANCHORS_DIR: &str = "journals/anchors";

/// The anchor file of the journal at `journal` under `anchors`; `None`
/// when its directory cannot be resolved.
pub fn path_for(anchors: &Path, journal: &Path) -> Option<PathBuf> {
    let dir = journal.parent().filter(|dir| !dir.as_os_str().is_empty());
    let dir = std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()?;
    let full = dir.join(journal.file_name()?);
    let digest = Sha256::digest(full.as_os_str().as_encoded_bytes());
    let name: String = hex::encode(&digest[..16]);
    Some(anchors.join(name))
}

/// One journal's anchor, open for the session: each entry rewrites its
/// one fixed-width record in place ([`RECORD_BYTES`], the sequence number
/// padded with zeros), so recording costs one write and never truncates
/// the file (a truncate-and-rewrite makes ext4 write the file back at
/// every close: that was most of the journal's cost).
#[derive(Debug)]
pub struct Anchor {
    file: File,
    /// The file holds exactly one record of [`RECORD_BYTES`] (set once:
    /// an anchor written by an older xcsh may be shorter).
    sized: bool,
}

/// The length of an anchor record: a 20-digit sequence number, a space,
/// the 64 hex digits of the chain, a line break.
pub const RECORD_BYTES: u64 = 20 + 1 + 64 + 1;

impl Anchor {
    /// Opens (creating it, mode 0600, in a directory of mode 0700) the
    /// anchor at `path`, a regular file of the user's own reached through
    /// no link.
    ///
    /// # Errors
    ///
    /// The directory or file cannot be created or opened, or it is not
    /// such a file.
    pub fn open(path: &Path) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir)?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600).custom_flags(
                (nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits(),
            );
        }
        let file = options.open(path)?;
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "the journal anchor {} is not a regular file",
                    path.display()
                ),
            ));
        }
        Ok(Self { file, sized: false })
    }

    /// Records `link` as where the journal's chain ends now.
    ///
    /// # Errors
    ///
    /// The anchor cannot be written.
    pub fn record(&mut self, link: &Link) -> std::io::Result<()> {
        let record = format!("{:020} {}\n", link.seq, link.chain);
        write_all_at(&self.file, record.as_bytes())?;
        if !self.sized {
            self.file.set_len(record.len() as u64)?;
            self.sized = true;
        }
        Ok(())
    }

    /// The open anchor file (to flush it, or a descriptor of it to
    /// flush later).
    pub fn file(&self) -> &File {
        &self.file
    }
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, 0)
}

#[cfg(not(unix))]
fn write_all_at(file: &File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek as _, Write as _};
    let mut file = file;
    file.seek(std::io::SeekFrom::Start(0))?;
    file.write_all(bytes)
}

/// Where the chain ended when xcsh last wrote it; `None` when it has no
/// anchor (never written by this user's xcsh, or written before anchors).
///
/// # Errors
///
/// The anchor exists but cannot be read or is not an anchor.
pub fn read(path: &Path) -> std::io::Result<Option<Link>> {
    let text = match super::open::for_reading(path) {
        Ok(file) => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::Read::take(file, 256), &mut text)?;
            text
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not a journal anchor");
    let (seq, chain) = text.trim().split_once(' ').ok_or_else(bad)?;
    Ok(Some(Link {
        seq: seq.parse().map_err(|_| bad())?,
        chain: chain.to_owned(),
    }))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_of_an_older_xcsh_is_read_then_rewritten_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("anchors/a");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let chain = "ab".repeat(32);
        std::fs::write(&path, format!("7 {chain}\n")).unwrap();
        assert_eq!(read(&path).unwrap().unwrap().seq, 7);
        let mut anchor = Anchor::open(&path).unwrap();
        for seq in [8, 1234] {
            anchor
                .record(&Link {
                    seq,
                    chain: chain.clone(),
                })
                .unwrap();
            let link = read(&path).unwrap().unwrap();
            assert_eq!((link.seq, link.chain.as_str()), (seq, chain.as_str()));
            assert_eq!(std::fs::metadata(&path).unwrap().len(), RECORD_BYTES);
        }
    }

    #[test]
    fn an_anchor_that_is_a_link_or_a_fifo_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "keep\n").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(Anchor::open(&link).is_err());
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(
            Anchor::open(&fifo).unwrap_err().to_string(),
            format!(
                "the journal anchor {} is not a regular file",
                fifo.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep\n");
    }
}
