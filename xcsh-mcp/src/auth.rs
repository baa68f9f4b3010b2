//! The bearer token of `xcsh mcp --http`: generated at every start, written
//! to a file only the user can read, and required on every request.
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
}
