//! The namespace sandbox a pack's process is started in, as the agent
//! plans it and the process (`xcsh pack-host --namespaces PLAN`) sets it
//! up before anything else runs: which namespaces, and the mounts of its
//! view of the file system, in order.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The option of the [`SUBCOMMAND`](crate::SUBCOMMAND) that carries a
/// [`NamespacePlan`] (as JSON): the process sets the namespaces up, then
/// runs the subcommand again inside them without it.
pub const NAMESPACES_OPTION: &str = "--namespaces";

/// How every line the process writes about a failure to set the
/// namespaces up starts (on stderr, before any of xcsh's protocol): the
/// agent then starts the pack again without namespaces, and says why.
pub const NAMESPACES_FAILED: &str = "xcsh namespaces: ";

/// The namespaces of one pack's process and its view of the files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamespacePlan {
    /// Keep the agent's network (the `network` grant); otherwise a network
    /// namespace of its own with only its own loopback.
    pub network: bool,
    /// The mounts, in order; each path is the same outside and inside.
    pub mounts: Vec<MountStep>,
    /// Where the process starts.
    #[serde(with = "crate::path_bytes")]
    pub cwd: PathBuf,
    /// The agent's process id: a process whose parent is no longer that
    /// one (the agent died while starting it) stops at once.
    pub agent: u32,
}

/// One mount of the sandbox's view (the options of bubblewrap it
/// replaces in brackets).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MountStep {
    /// The whole system at `/`, read-only unless `writable`
    /// (`--ro-bind / /`, `--bind / /`).
    Root {
        /// Bound writable (the `write-anywhere` grant).
        writable: bool,
    },
    /// A minimal `/dev` at this path: `null`, `zero`, `full`, `random`,
    /// `urandom` and `tty`, no other device (`--dev`).
    Dev(#[serde(with = "crate::path_bytes")] PathBuf),
    /// A `/proc` of the process's own PID namespace (`--proc`).
    Proc(#[serde(with = "crate::path_bytes")] PathBuf),
    /// An empty private directory (`--tmpfs`).
    Tmpfs(#[serde(with = "crate::path_bytes")] PathBuf),
    /// The path bound onto itself, with everything beneath it
    /// (`--bind`, `--ro-bind`, and their `-try` forms).
    Bind {
        /// The path, the same outside and inside.
        #[serde(with = "crate::path_bytes")]
        path: PathBuf,
        /// Read-only, with everything beneath it.
        read_only: bool,
        /// Skipped if it no longer exists (removed since it was looked at).
        if_exists: bool,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_goes_through_json_unchanged() {
        let plan = NamespacePlan {
            network: false,
            mounts: vec![
                MountStep::Root { writable: false },
                MountStep::Dev("/dev".into()),
                MountStep::Bind {
                    path: "/work/.git".into(),
                    read_only: true,
                    if_exists: true,
                },
            ],
            cwd: "/work".into(),
            agent: 42,
        };
        let text = serde_json::to_string(&plan).unwrap();
        assert_eq!(serde_json::from_str::<NamespacePlan>(&text).unwrap(), plan);
    }
}
