//! Opening the journal file safely: it may sit in a directory a cloned
//! repository filled, so it is opened without following a link and
//! without blocking (a FIFO would hang the session), and used only when it
//! is a regular file of the user's own with one name (no hard link to a
//! file elsewhere); its directory must not be a link either. Reads are
//! bounded: one entry is at most [`MAX_ENTRY_BYTES`].

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead};
use std::path::Path;

/// The longest journal entry read or written, in bytes.
pub const MAX_ENTRY_BYTES: usize = 4 * 1024 * 1024;

/// Opens the journal at `path` for appending, creating it (mode 0600) and
/// its directory.
///
/// # Errors
///
/// The directory or file cannot be created or opened, or it is not a
/// regular file of this user's with one link (an error naming what it is).
pub fn for_append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        if let Ok(metadata) = std::fs::symlink_metadata(dir)
            && metadata.file_type().is_symlink()
        {
            return Err(refused(format!(
                "its directory {} is a symbolic link",
                dir.display()
            )));
        }
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    let mut options = OpenOptions::new();
    options.append(true).create(true).read(true);
    no_follow(&mut options);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path).map_err(explain_link)?;
    check(&file.metadata()?)?;
    Ok(file)
}

/// Opens the journal at `path` for reading, as [`for_append`] checks it.
///
/// # Errors
///
/// As [`for_append`]; `NotFound` when there is no journal.
pub fn for_reading(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    no_follow(&mut options);
    let file = options.open(path).map_err(explain_link)?;
    check(&file.metadata()?)?;
    Ok(file)
}

fn no_follow(options: &mut OpenOptions) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc_flags());
    }
    #[cfg(not(unix))]
    let _ = options;
}

#[cfg(unix)]
fn libc_flags() -> i32 {
    (nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits()
}

/// `ELOOP` from `O_NOFOLLOW` said in words.
fn explain_link(error: io::Error) -> io::Error {
    #[cfg(unix)]
    if error.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) {
        return refused("it is a symbolic link".to_owned());
    }
    error
}

fn refused(why: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("refusing the journal: {why}"),
    )
}

/// The open journal, whose `fstat` gave `metadata`, must be a regular
/// file of this user's with one link.
///
/// # Errors
///
/// It is not (an error naming what it is).
pub fn check(metadata: &std::fs::Metadata) -> io::Result<()> {
    if !metadata.is_file() {
        return Err(refused(
            "it is not a regular file (a device, FIFO or socket)".to_owned(),
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        // Asked once: an entry costs no system call for it.
        static ME: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
        let me = *ME.get_or_init(|| nix::unistd::geteuid().as_raw());
        if metadata.uid() != me {
            return Err(refused(format!(
                "it is owned by another user (uid {})",
                metadata.uid()
            )));
        }
        if metadata.nlink() != 1 {
            return Err(refused(
                "it has other names (a hard link to another file)".to_owned(),
            ));
        }
    }
    // Reads that follow must not block: it is a regular file.
    Ok(())
}

/// One line of at most [`MAX_ENTRY_BYTES`] (without its line break);
/// `Ok(None)` at the end; a longer line is `Err` with the bytes skipped.
///
/// # Errors
///
/// Reading failed, or the line was too long (`InvalidData`; the rest of
/// the line has been skipped, so reading can go on).
pub fn read_line<R: BufRead>(reader: &mut R) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let read =
        io::Read::take(&mut *reader, MAX_ENTRY_BYTES as u64 + 1).read_until(b'\n', &mut line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(Some(line));
    }
    if line.len() <= MAX_ENTRY_BYTES {
        // The last line, without a line break.
        return Ok(Some(line));
    }
    // Skip to the end of this line, a bounded buffer at a time.
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => {
                reader.consume(at + 1);
                break;
            }
            None => {
                let all = buffer.len();
                reader.consume(all);
            }
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        format!("an entry longer than {MAX_ENTRY_BYTES} bytes"),
    ))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_devices_and_hard_links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "keep\n").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        let error = for_append(&link).unwrap_err();
        assert_eq!(
            error.to_string(),
            "refusing the journal: it is a symbolic link"
        );
        let fifo = dir.path().join("fifo.jsonl");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(
            for_append(&fifo).unwrap_err().to_string(),
            "refusing the journal: it is not a regular file (a device, FIFO or socket)"
        );
        assert!(for_reading(Path::new("/dev/zero")).is_err());
        let hard = dir.path().join("hard.jsonl");
        std::fs::hard_link(&outside, &hard).unwrap();
        assert_eq!(
            for_append(&hard).unwrap_err().to_string(),
            "refusing the journal: it has other names (a hard link to another file)"
        );
        let linked_dir = dir.path().join("linked");
        std::os::unix::fs::symlink(dir.path(), &linked_dir).unwrap();
        assert!(for_append(&linked_dir.join("journal.jsonl")).is_err());
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep\n");
    }

    #[test]
    fn a_line_too_long_is_skipped_and_reading_goes_on() {
        let mut text = vec![b'x'; MAX_ENTRY_BYTES + 10];
        text.extend_from_slice(b"\nnext\nlast");
        let mut reader = io::BufReader::new(&text[..]);
        assert_eq!(
            read_line(&mut reader).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        assert_eq!(read_line(&mut reader).unwrap().unwrap(), b"next");
        assert_eq!(read_line(&mut reader).unwrap().unwrap(), b"last");
        assert!(read_line(&mut reader).unwrap().is_none());
    }
}
