//! The messages after the handshake.
//!
//! JSON (arguments, schemas, details) crosses as text, as it crosses the
//! pack ABI: postcard is not self-describing, and both ends already hold it
//! as text.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Host to child.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// Sandbox the process and open the pack; sent once, after the hello.
    Open(OpenPack),
    /// Run a tool. Answered by [`Reply::Done`] with the same `id`.
    Call {
        /// The host's id for this request.
        id: u64,
        /// The tool's name.
        tool: String,
        /// The model's id for the call.
        call_id: String,
        /// The arguments, already validated against the tool's schema.
        arguments_json: String,
    },
    /// Set the cancellation flag of request `id` (a call in flight).
    Cancel {
        /// The request to cancel.
        id: u64,
    },
    /// Apply a pushed action. Answered by [`Reply::Done`].
    Apply {
        /// The host's id for this request.
        id: u64,
        /// The action, as [`PushedAction::action`] named it.
        action: u64,
        /// The model's reason.
        reason: String,
    },
    /// Run a pushed action's reject code; the action is forgotten either
    /// way. Answered by [`Reply::Done`] ([`Outcome::Nothing`] when the
    /// reject returned nothing).
    Reject {
        /// The host's id for this request.
        id: u64,
        /// The action.
        action: u64,
        /// The model's reason.
        reason: String,
    },
    /// The host dropped the action (applied, or discarded without reject
    /// code): the child may free it. No reply.
    Forget {
        /// The action.
        action: u64,
    },
}

/// The descriptor number at which the child finds the pack's library: a
/// sealed copy of the file the host opened and checked. The child maps it
/// and never opens the library by path.
pub const PACK_FD: i32 = 3;

/// What [`Request::Open`] asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenPack {
    /// The canonical path of the pack's library, for messages only: the
    /// library itself is the sealed copy at [`PACK_FD`], checked by the
    /// host's trust policy.
    #[serde(with = "crate::path_bytes")]
    pub path: PathBuf,
    /// The session's working directory.
    #[serde(with = "crate::path_bytes")]
    pub cwd: PathBuf,
    /// The sandbox to enter before opening the pack.
    pub sandbox: SandboxRequest,
    /// Address-space limit in bytes (`RLIMIT_AS`), set before the pack opens.
    pub memory_limit: Option<u64>,
    /// The user started xcsh with `--allow-outside-root` (a version 2
    /// pack's `confined_path` follows it).
    pub allow_outside_root: bool,
    /// The `[packs.NAME]` tables of the user's config, as a JSON object by
    /// pack name (`{}` when there are none); the child hands the pack the
    /// one under its name, checked against its schema.
    pub configs_json: String,
}

/// The sandbox the child enters before it opens the pack.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxRequest {
    /// Directories the pack may write beneath (the session's working
    /// directory and temporary directory).
    #[serde(with = "crate::path_bytes::list")]
    pub writable: Vec<PathBuf>,
    /// Write anywhere (the `write-anywhere` capability).
    pub write_anywhere: bool,
    /// Open network connections and reach any socket (the `network`
    /// capability).
    pub network: bool,
    /// Start processes (the `processes` capability).
    pub processes: bool,
    /// Refuse to open the pack unless the kernel enforces the sandbox.
    pub required: bool,
    /// The agent started the process in namespaces of its own, where
    /// everything outside the writable directories is a read-only mount.
    /// Without them the process refuses itself the metadata calls
    /// (`chmod`, `chown`, `utimensat`, `setxattr` and their kin), which
    /// Landlock does not cover. Set by the agent when it starts the
    /// process, whatever the request said.
    pub in_namespaces: bool,
    /// Directories the pack may not read, or even list (since protocol
    /// version 9): the private directory of xcsh's data directory, which
    /// holds the journal's key and the MCP token. Canonical paths. In the
    /// namespaces an empty directory is mounted over each; Landlock, there
    /// as a second layer and alone without them, gives no rule beneath
    /// one: at each directory above it, every other entry is readable, not
    /// the one on the way to it (so an entry made there after the process
    /// started is not readable either).
    #[serde(with = "crate::path_bytes::list")]
    pub hidden: Vec<PathBuf>,
}

/// What the kernel made of the sandbox request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SandboxStatus {
    /// Every restriction asked for is enforced (Landlock, this ABI).
    Enforced {
        /// The Landlock ABI version in force.
        abi: u32,
        /// The seccomp filter is in force too.
        seccomp: bool,
    },
    /// Some restrictions are enforced, others the kernel lacks.
    Partial {
        /// The Landlock ABI version in force.
        abi: u32,
        /// The seccomp filter is in force too.
        seccomp: bool,
    },
    /// Landlock enforces nothing.
    Unconfined {
        /// Why, in a few words.
        reason: String,
        /// The seccomp filter is in force all the same (its always-refused
        /// calls, such as `ptrace`, stay refused whatever is granted).
        seccomp: bool,
    },
    /// The process runs in namespaces of its own (set up by xcsh's own
    /// engine as the host planned them, [`NamespacePlan`](crate::NamespacePlan)),
    /// with Landlock inside as a
    /// second layer. Only the host says this; a child never sends it.
    Namespaces {
        /// What Landlock inside made of the request, and whether the
        /// seccomp filter is in force, as the child reported them.
        landlock: Box<SandboxStatus>,
    },
    /// The process was meant to run in namespaces of its own but could
    /// not (user namespaces unavailable here): Landlock is all there is. Only the host
    /// says this; a child never sends it.
    LandlockOnly {
        /// Why there are no namespaces, in a few words.
        reason: String,
        /// What Landlock made of the request.
        landlock: Box<SandboxStatus>,
    },
}

/// Child to host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// The pack is open.
    Opened(Opened),
    /// The pack could not be opened; the child exits after this.
    OpenFailed {
        /// The loader's one-line cause.
        message: String,
    },
    /// The pack pushed a pending action (sent before the reply of the
    /// call that pushed it).
    Pushed(PushedAction),
    /// The sandbox the child entered, sent before the pack's library is
    /// mapped (so before any of its code runs) and only then: the host
    /// takes the sandbox state from this message, never from
    /// [`Reply::Opened`].
    Sandboxed(SandboxStatus),
    /// A partial result of request `id`.
    Progress {
        /// The request.
        id: u64,
        /// The partial output.
        output: Output,
    },
    /// A line the pack wrote to the host's log while request `id` ran on
    /// the pack's own thread (since protocol version 5).
    Log {
        /// The request.
        id: u64,
        /// How much it matters.
        level: LogLevel,
        /// The text.
        message: String,
    },
    /// Request `id` finished.
    Done {
        /// The request.
        id: u64,
        /// How it ended.
        outcome: Outcome,
    },
}

/// The level of a [`Reply::Log`] line, least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LogLevel {
    /// Very detailed.
    Trace,
    /// For developers.
    Debug,
    /// Normal operation.
    Info,
    /// Something looks wrong.
    Warn,
    /// Something failed.
    Error,
}

/// An opened pack: who it is, its tools, and its sandbox.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opened {
    /// The pack's name.
    pub name: String,
    /// The pack's version.
    pub version: String,
    /// The `xcsh-plugin-api` ABI version the pack declares (since protocol
    /// version 2).
    pub abi_version: String,
    /// The library's canonical path.
    #[serde(with = "crate::path_bytes")]
    pub path: PathBuf,
    /// Its tools, in the pack's order.
    pub tools: Vec<ToolSpec>,
    /// The sandbox in force.
    pub sandbox: SandboxStatus,
}

/// A tool as the host registers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Name.
    pub name: String,
    /// Label.
    pub label: String,
    /// Description.
    pub description: String,
    /// The JSON schema of its arguments.
    pub parameters_json: String,
    /// What it says about its effects.
    pub hints: Hints,
}

/// A tool's hints, as in `xcsh_core::ToolHints`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hints {
    /// Only reads.
    pub read_only: Option<bool>,
    /// May destroy data.
    pub destructive: Option<bool>,
    /// Repeating it changes nothing more.
    pub idempotent: Option<bool>,
    /// Reaches outside the machine.
    pub open_world: Option<bool>,
}

/// A pending action the pack pushed, as the host's store shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushedAction {
    /// The child's id for the action.
    pub action: u64,
    /// The request id of the call that pushed it; `None` outside any call
    /// (the host refuses such a push, as it does in-process).
    pub call: Option<u64>,
    /// Label.
    pub label: String,
    /// The tool that produced it.
    pub source_tool_name: String,
    /// Structured details.
    pub details_json: Option<String>,
    /// True when it has reject code.
    pub has_reject: bool,
}

/// How a request ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// Success with output.
    Output(Output),
    /// Success without output (a reject that returned nothing).
    Nothing,
    /// An error result.
    Error {
        /// The message.
        message: String,
        /// Structured details.
        details_json: Option<String>,
    },
}

/// A tool, apply or reject output.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Output {
    /// Content blocks, in order.
    pub content: Vec<Block>,
    /// Structured details.
    pub details_json: Option<String>,
}

impl Output {
    /// One text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Block::Text(text.into())],
            details_json: None,
        }
    }
}

/// One content block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Block {
    /// Text.
    Text(String),
    /// A base64 image.
    Image {
        /// Base64 bytes.
        data: String,
        /// MIME type.
        mime_type: String,
    },
}
