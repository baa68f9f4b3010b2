//! The version handshake, the first frame each way.

use serde::{Deserialize, Serialize};

/// The hidden subcommand of the `xcsh` binary that serves one isolated
/// pack: the agent starts its own image with it, and the binary hands it
/// to `xcsh-pack-host`.
pub const SUBCOMMAND: &str = "pack-host";

/// Marks an xcsh isolation stream, so a wrong program on the other end is
/// told apart from a wrong version.
pub const MAGIC: [u8; 8] = *b"xcsh-iso";

/// The protocol version this crate speaks. Bump it on any change to
/// [`Request`](crate::Request) or [`Reply`](crate::Reply).
pub const PROTOCOL_VERSION: u32 = 9;

/// The first frame each way. Its layout never changes, whatever the
/// version, so two ends of different versions can always tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// Always [`MAGIC`].
    pub magic: [u8; 8],
    /// The sender's [`PROTOCOL_VERSION`].
    pub version: u32,
}

impl Hello {
    /// The hello of this build.
    pub fn current() -> Self {
        Self {
            magic: MAGIC,
            version: PROTOCOL_VERSION,
        }
    }

    /// True when `other` speaks the same protocol: the same magic and the
    /// same version (both ends are normally the same binary).
    pub fn is_compatible_with(&self, other: &Hello) -> bool {
        self.magic == MAGIC && other.magic == MAGIC && self.version == other.version
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_version_or_magic_is_incompatible() {
        let ours = Hello::current();
        assert!(ours.is_compatible_with(&ours));
        let newer = Hello {
            version: PROTOCOL_VERSION + 1,
            ..ours
        };
        assert!(!ours.is_compatible_with(&newer));
        let stranger = Hello {
            magic: *b"not-xcsh",
            ..ours
        };
        assert!(!ours.is_compatible_with(&stranger));
    }
}
