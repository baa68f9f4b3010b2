//! An API key, read from the environment variable the settings name.

use std::fmt;

/// An API key, held in memory only and never printed.
#[derive(Clone)]
pub(crate) struct ApiKey(pub(crate) String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(..)")
    }
}
