//! Where each journal's chain last ended, kept apart from the journal in
//! the user's data directory (`journals/anchors/`, one small file per
//! journal, named by the SHA-256 of its canonical path): rewritten after
//! every entry, under the journal's lock. A chain alone cannot show
//! entries cut off its end; with the anchor, `xcsh journal --verify`
//! reports a journal cut short, emptied, or swapped for another one
//! instead of vouching for it.

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
    let name: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    Some(anchors.join(name))
}

/// Records `link` as where the journal's chain ends now.
///
/// # Errors
///
/// The anchor cannot be written.
pub fn write(path: &Path, link: &Link) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    std::fs::write(path, format!("{} {}\n", link.seq, link.chain))
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
