//! The bearer token of `xcsh mcp --http`: kept in a file only the user can
//! read, and required on every request.
//!
//! The token in the file is reused at every start, so a client
//! configuration that holds it keeps working across restarts, and servers
//! started at once share it. A new one is written when there is none, when
//! the file does not hold a token, or when the file is not the user's only
//! (group or others may read it, or it is a symbolic link): a token others
//! could read is never used. Deleting the file makes the next start write a
//! new token.
//!
//! The threat is another user (or a web page) on the same machine reaching
//! the loopback port: without the token, which only the user can read,
//! they get `401 Unauthorized` and never reach a session.

use std::io;
use std::path::Path;

use http::{HeaderMap, header};

/// The file name of the token in the user's xcsh data directory.
pub const TOKEN_FILE_NAME: &str = "mcp-token";

/// What a request without the right token is told.
pub const UNAUTHORIZED: &str =
    "Unauthorized: send the token from the xcsh token file as \"Authorization: Bearer TOKEN\"";

/// The length of a token: 64 lowercase hexadecimal digits.
const TOKEN_LEN: usize = 64;

/// A bearer token.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

impl Token {
    /// A new random token (244 random bits, from the OS's generator).
    pub fn generate() -> Self {
        Self(format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        ))
    }

    /// The token in the file at `path` if it holds one and only the user
    /// can read it; else a new token, written there (readable by the user
    /// only). The flag says whether the token is new.
    ///
    /// # Errors
    ///
    /// The file cannot be read (other than not existing) or written.
    pub fn load_or_create(path: &Path) -> io::Result<(Self, bool)> {
        if let Some(token) = Self::load(path)? {
            return Ok((token, false));
        }
        let token = Self::generate();
        token.write_to(path)?;
        Ok((token, true))
    }

    /// The token in `path`, if the file holds one and is the user's only
    /// (read as xcsh's own files are, [`xcsh_loader::OwnFile`]); a file
    /// refused is replaced by the caller, the reason logged.
    fn load(path: &Path) -> io::Result<Option<Self>> {
        let read = xcsh_loader::OwnFile::new(path, "the token file", 256)
            .private()
            .without_links()
            .read();
        let bytes = match read {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(None),
            Err(error) => {
                tracing::info!(%error, "writing a new token");
                return Ok(None);
            }
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Ok(None);
        };
        let text = text.trim();
        let well_formed = text.len() == TOKEN_LEN
            && text
                .bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte));
        Ok(well_formed.then(|| Self(text.to_owned())))
    }

    /// Writes the token to `path`, readable by the user only (the file is
    /// replaced whole, so a reader never sees half of it).
    ///
    /// # Errors
    ///
    /// The file cannot be written.
    pub fn write_to(&self, path: &Path) -> io::Result<()> {
        xcsh_sources::private_file::write_bytes(path, format!("{}\n", self.0).as_bytes())
    }

    /// Whether `headers` carry `Authorization: Bearer` with this token
    /// (compared in constant time).
    pub fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return false;
        };
        let Some(sent) = value
            .to_str()
            .ok()
            .and_then(|value| value.strip_prefix("Bearer "))
        else {
            return false;
        };
        let (sent, expected) = (sent.trim().as_bytes(), self.0.as_bytes());
        sent.len() == expected.len()
            && sent
                .iter()
                .zip(expected)
                .fold(0u8, |differ, (a, b)| differ | (a ^ b))
                == 0
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(authorization).unwrap(),
        );
        headers
    }

    #[test]
    fn only_the_bearer_token_itself_is_admitted() {
        let token = Token::generate();
        assert!(token.admits(&headers(&format!("Bearer {}", token.0))));
        assert!(!token.admits(&HeaderMap::new()));
        assert!(!token.admits(&headers(&format!("Basic {}", token.0))));
        assert!(!token.admits(&headers(&format!("Bearer {}x", token.0))));
        assert!(!token.admits(&headers(&format!("Bearer {}", Token::generate().0))));
    }

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_the_users_only() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("xcsh").join(TOKEN_FILE_NAME);
        let token = Token::generate();
        token.write_to(&path).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{}\n", token.0)
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }

    #[cfg(unix)]
    #[test]
    fn the_token_in_a_private_file_is_reused_and_any_other_replaced() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("xcsh").join(TOKEN_FILE_NAME);
        let (first, created) = Token::load_or_create(&path).unwrap();
        assert!(created);
        let (again, created) = Token::load_or_create(&path).unwrap();
        assert!(!created);
        assert_eq!(again.0, first.0);

        // Readable by others: never used, replaced by a private file.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (replaced, created) = Token::load_or_create(&path).unwrap();
        assert!(created);
        assert_ne!(replaced.0, first.0);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");

        // Not a token: replaced.
        std::fs::write(&path, "hunter2\n").unwrap();
        let (fresh, created) = Token::load_or_create(&path).unwrap();
        assert!(created);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{}\n", fresh.0)
        );

        // A symbolic link (to a token file of the right shape): replaced by a
        // file of its own, the link's target untouched.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, format!("{}\n", first.0)).unwrap();
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
        let (own, created) = Token::load_or_create(&path).unwrap();
        assert!(created);
        assert_ne!(own.0, first.0);
        assert!(std::fs::symlink_metadata(&path).unwrap().is_file());
        assert_eq!(
            std::fs::read_to_string(&elsewhere).unwrap(),
            format!("{}\n", first.0)
        );
    }
}
