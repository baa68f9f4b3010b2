//! The journal's chain: every entry is numbered and sealed with a hash of
//! itself and of the entry before it, so that an entry edited, removed
//! from the middle or moved is found by `xcsh journal --verify`.
//!
//! An entry is one JSON object on one line. The writer adds two fields,
//! always last and in this order:
//!
//! - `seq`: the entry's number in the file, from 1;
//! - `chain`: the lowercase hex HMAC-SHA-256, keyed by the user's journal
//!   key, of the previous entry's `chain` (empty for the first), a line
//!   break, and this entry's line as it reads up to and including `seq`
//!   followed by `}` (that is, the line without `,"chain":"…"`).
//!
//! Readers (and later entry kinds, such as undo records) may add fields
//! anywhere before `seq`; the chain covers them. The key (32 random bytes,
//! hex, in `journal.key` in the private directory of the user's xcsh data
//! directory, `{data}/private`, mode 0600, see
//! [`xcsh_sources::private_dir`]) is what keeps anything that can write
//! the working directory, but not read the user's secrets, from writing a
//! chain that verifies: no isolated pack can read that directory. What a chain
//! alone cannot show is entries cut off at the end: the
//! [`anchor`](super::anchor) kept beside it does.

use std::path::Path;

use hmac::{KeyInit as _, Mac as _};

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The key file's name in the private directory of the user's xcsh data
/// directory (in the data directory itself before that; moved in when
/// found there).
pub const KEY_FILE_NAME: &str = "journal.key";

/// The end every sealed line has: `,"chain":"` 64 hex digits `"}`.
const CHAIN_PREFIX: &str = ",\"chain\":\"";
const CHAIN_SUFFIX_LEN: usize = CHAIN_PREFIX.len() + 64 + 2;

/// The secret that keys the chain.
#[derive(Clone)]
pub struct Key(Vec<u8>);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(…)")
    }
}

impl Key {
    /// The user's key from the private directory of `data` (the xcsh data
    /// directory), created there if `create` and missing; an older key in
    /// `data` itself is moved in first ([`xcsh_sources::private_dir::prepare`]).
    ///
    /// # Errors
    ///
    /// The key cannot be read or created, or its file or the private
    /// directory is not private to the user (a message naming the path
    /// and the fix).
    pub fn of_user(data: &Path, create: bool) -> Result<Self, String> {
        let dir = xcsh_sources::private_dir::prepare(data)?;
        let path = dir.join(KEY_FILE_NAME);
        match read_key(&path)? {
            Some(key) => return Ok(key),
            None if create => {}
            None => return Err(format!("there is no journal key {}", path.display())),
        }
        let mut bytes = Vec::with_capacity(32);
        bytes.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        bytes.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
        let hex = hex::encode(&bytes);
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        }
        let written = builder.create(&dir).and_then(|()| {
            let mut file = options.open(&path)?;
            std::io::Write::write_all(&mut file, format!("{hex}\n").as_bytes())?;
            file.sync_all()
        });
        match written {
            Ok(()) => Ok(Self(bytes)),
            // Another session created it meanwhile: use that one.
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => read_key(&path)?
                .ok_or_else(|| format!("the journal key {} vanished", path.display())),
            Err(error) => Err(format!(
                "cannot create the journal key {}: {error}",
                path.display()
            )),
        }
    }

    /// The empty key, for a user without a data directory: the chain then
    /// still shows entries edited, removed or moved by hand, but not a
    /// journal rewritten with a new chain.
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// The `chain` of an entry whose unsealed line is `unsealed`, after
    /// the entry whose chain is `previous` (`""` for the first).
    pub fn link(&self, previous: &str, unsealed: &str) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes keys of any length");
        mac.update(previous.as_bytes());
        mac.update(b"\n");
        mac.update(unsealed.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }
}

/// The key file, read as xcsh's own files are
/// ([`xcsh_loader::OwnFile`]): a regular file of the user's own that
/// nobody else can read or write, not a link, holding 64 hex digits;
/// `None` when there is none.
fn read_key(path: &Path) -> Result<Option<Key>, String> {
    let Some(bytes) = xcsh_loader::OwnFile::new(path, "the journal key", 256)
        .private()
        .without_links()
        .read()?
    else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes);
    let hex = text.trim();
    let key: Option<Vec<u8>> = (hex.len() == 64 && hex.is_ascii())
        .then(|| {
            (0..32)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
                .collect()
        })
        .flatten();
    key.map(|key| Some(Key(key))).ok_or_else(|| {
        format!(
            "not a journal key (64 hex digits): {} (fix: remove it)",
            path.display()
        )
    })
}

/// Where an entry sits in the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Its `seq`.
    pub seq: u64,
    /// Its `chain`.
    pub chain: String,
}

/// The sealed line for `fields` (a JSON object's text, without `seq` and
/// `chain`) after `previous` (`None`: the first entry), and its link.
pub fn seal(key: &Key, previous: Option<&Link>, fields: &str) -> (String, Link) {
    let seq = previous.map_or(1, |link| link.seq + 1);
    let body = fields.strip_suffix('}').unwrap_or(fields);
    let separator = if body.ends_with('{') { "" } else { "," };
    let unsealed = format!("{body}{separator}\"seq\":{seq}}}");
    let chain = key.link(previous.map_or("", |link| link.chain.as_str()), &unsealed);
    let line = format!(
        "{}{CHAIN_PREFIX}{chain}\"}}",
        &unsealed[..unsealed.len() - 1]
    );
    (line, Link { seq, chain })
}

/// A sealed line taken apart: its unsealed text and its link; `None` for
/// a line that is not sealed.
pub fn unseal(line: &str) -> Option<(String, Link)> {
    let cut = line.len().checked_sub(CHAIN_SUFFIX_LEN)?;
    let (body, suffix) = (line.get(..cut)?, line.get(cut..)?);
    let chain = suffix.strip_prefix(CHAIN_PREFIX)?.strip_suffix("\"}")?;
    if !chain
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    let unsealed = format!("{body}}}");
    let seq = serde_json::from_str::<serde_json::Value>(&unsealed)
        .ok()?
        .get("seq")?
        .as_u64()?;
    Some((
        unsealed,
        Link {
            seq,
            chain: chain.to_owned(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_line_unseals_to_its_link_and_chains_to_the_one_before() {
        let key = Key(vec![7; 32]);
        let (first, one) = seal(&key, None, r#"{"event":"push"}"#);
        assert!(
            first.starts_with(r#"{"event":"push","seq":1,"chain":""#),
            "{first}"
        );
        let (second, two) = seal(&key, Some(&one), r#"{"event":"resolve"}"#);
        let (unsealed, link) = unseal(&second).unwrap();
        assert_eq!(unsealed, r#"{"event":"resolve","seq":2}"#);
        assert_eq!(link, two);
        assert_eq!(key.link(&one.chain, &unsealed), two.chain);
        // Another key, or another previous entry, gives another chain.
        assert_ne!(Key::none().link(&one.chain, &unsealed), two.chain);
        assert_ne!(key.link("", &unsealed), two.chain);
        assert!(unseal(r#"{"event":"push"}"#).is_none());
        let parsed: serde_json::Value = serde_json::from_str(&second).unwrap();
        assert_eq!(parsed["chain"], two.chain.as_str());
    }

    #[cfg(unix)]
    #[test]
    fn the_key_is_created_private_once_and_a_readable_one_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let key = Key::of_user(dir.path(), true).unwrap();
        let again = Key::of_user(dir.path(), false).unwrap();
        assert_eq!(key.link("", "x"), again.link("", "x"));
        let path = dir.path().join("private").join(KEY_FILE_NAME);
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            Key::of_user(dir.path(), true).unwrap_err(),
            format!(
                "refusing the journal key readable by other users: {} (fix: chmod 600 {})",
                path.display(),
                path.display()
            )
        );
    }
}
