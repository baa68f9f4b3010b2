//! The command line, as clap sees it.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand};
use xcsh_model::AnswerLimits;
pub use xcsh_sources::{ModelArgs, PackArgs};

/// Where packs come from, for `--help`.
const SOURCES_HELP: &str = "\
Tool packs load at start-up from, in order (the first tool of a name wins):
  --plugin PATH, --plugin-dir DIR    on the command line of each subcommand
  XCSH_PLUGIN_PATH                   files and directories, OS path-list syntax
  .xcsh/config.toml                  then the user's xcsh/config.toml:
                                     plugins = [...], plugin_dirs = [...]
  .xcsh/plugins                      then the user's data directory's xcsh/plugins
A pack named twice loads once; a missing path is a warning. The working
directory's .xcsh files load only after `xcsh trust` there. Installed packs
(`xcsh pack add`) are offered after these, then a trusted project's
(`xcsh pack add --project`), and opened at their first call.";

/// A coding agent whose tools come from native tool packs: destructive tools
/// preview, and nothing changes until `resolve` applies the pending action.
#[derive(Debug, Parser)]
#[command(name = "xcsh", version, propagate_version = true, after_help = SOURCES_HELP)]
pub struct Cli {
    /// More log output on stderr: -v info, -vv debug, -vvv trace
    /// (RUST_LOG, when set, wins).
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub verbose: u8,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The tool packs the subcommand names (none for `pack`).
    pub fn packs(&self) -> &PackArgs {
        match &self.command {
            Command::Tools(args) => &args.packs,
            Command::Run(args) => &args.packs,
            Command::Repl(args) => &args.packs,
            Command::Mcp(args) => &args.packs,
            Command::Agent(args) => &args.packs,
            Command::Pack(_) | Command::Trust(_) | Command::Journal(_) | Command::Undo(_) => {
                static NONE: std::sync::LazyLock<PackArgs> =
                    std::sync::LazyLock::new(PackArgs::default);
                &NONE
            }
            Command::PackHost(args) => &args.packs,
            Command::PackProbe(args) => &args.packs,
        }
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the loaded tools, then the load report.
    Tools(ToolsArgs),
    /// Run a scripted session: one JSON tool call per input line, one JSON
    /// result per output line.
    Run(RunArgs),
    /// An interactive session with line editing, history and completion.
    Repl(ReplArgs),
    /// Serve the tools to a Model Context Protocol client over standard
    /// input and output (one session; `resolve` listed while anything is
    /// pending).
    Mcp(McpArgs),
    /// Give a task to a model: its tool calls run in the session, and
    /// while anything is pending it is steered to `resolve`.
    Agent(AgentArgs),
    /// Show the journal: the recent pushes, resolves and answers.
    Journal(JournalArgs),
    /// Undo an apply: put back the files it changed, from the snapshot
    /// taken around it (the newest apply unless ID is given).
    Undo(UndoArgs),
    /// Trust a project directory: load its .xcsh/config.toml, packs and
    /// installed packs (.xcsh/packs.json) from now on, as they are now (a
    /// changed config asks again).
    Trust(TrustArgs),
    /// Write and install tool packs.
    #[command(subcommand)]
    Pack(PackCommand),
    /// Serves one isolated tool pack to the agent that started it, over
    /// standard input and output (started by xcsh itself).
    #[command(name = "pack-host", hide = true)]
    PackHost(PackHostArgs),
    /// Opens one tool pack library and exits: the first-seen check of a
    /// library before the agent opens it in-process (started by xcsh
    /// itself).
    #[command(name = "pack-probe", hide = true)]
    PackProbe(PackProbeArgs),
}

/// Options of `xcsh journal`.
#[derive(Debug, Args)]
pub struct JournalArgs {
    /// Print the last N entries.
    #[arg(short = 'n', long = "last", value_name = "N", default_value_t = 20)]
    pub last: usize,

    /// Print the entries as JSON lines, as they are in the file.
    #[arg(long)]
    pub json: bool,

    /// Check that no entry was edited, removed or moved (exit status 1
    /// naming the first that was).
    #[arg(long, conflicts_with_all = ["json", "last"])]
    pub verify: bool,
}

/// Options of `xcsh undo`.
#[derive(Debug, Default, PartialEq, Eq, Args)]
pub struct UndoArgs {
    /// The apply to undo (`--list` shows the ids); default: the newest
    /// one not undone.
    #[arg(value_name = "ID")]
    pub id: Option<u64>,

    /// List the applies that can be undone, newest first.
    #[arg(long, conflicts_with_all = ["id", "yes", "force"])]
    pub list: bool,

    /// Undo without asking.
    #[arg(short = 'y', long)]
    pub yes: bool,

    /// Also overwrite files changed since the apply.
    #[arg(long)]
    pub force: bool,
}

impl UndoArgs {
    /// The agent's request for these options.
    pub fn request(&self) -> xcsh_agent::undo::command::UndoRequest {
        xcsh_agent::undo::command::UndoRequest {
            id: self.id,
            list: self.list,
            yes: self.yes,
            force: self.force,
        }
    }
}

/// Options of `xcsh trust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The project directory (default: the working directory).
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// List the trusted directories and what was trusted in each.
    #[arg(long, conflicts_with_all = ["dir", "revoke"])]
    pub list: bool,

    /// Stop trusting DIR (default: the working directory).
    #[arg(long)]
    pub revoke: bool,
}

/// `xcsh pack …`.
#[derive(Debug, Subcommand)]
pub enum PackCommand {
    /// Write a new tool-pack crate with a preview tool and its tests.
    New(PackNewArgs),
    /// Check a pack (in a child process) and install it: sessions offer
    /// its tools and open it at the first call of one.
    Add(PackAddArgs),
    /// List the installed packs (yours, then the working directory's
    /// project's), their tools, mode and state.
    List(PackListArgs),
    /// Forget an installed pack.
    Remove(PackRemoveArgs),
    /// Re-hash and re-check installed packs (yours, and the trusted
    /// project's); exits 1 if any is wrong.
    Verify(PackVerifyArgs),
}

/// Options of `xcsh pack add`.
#[derive(Debug, Args)]
pub struct PackAddArgs {
    /// The pack library, or a pack crate directory (built with
    /// `cargo build --release` first).
    #[arg(value_name = "PATH")]
    pub path: PathBuf,

    /// Remove the installed packs whose tool names conflict with this
    /// pack's, instead of refusing it (only from the registry it is
    /// added to: --project never removes yours).
    #[arg(long)]
    pub replace: bool,

    /// Run the pack in a process of its own whenever it is used.
    #[arg(long)]
    pub isolate: bool,

    /// Install it for the working directory's project (.xcsh/packs.json,
    /// used only while the directory is trusted; your installed packs win
    /// a tool-name conflict) instead of for you.
    #[arg(long)]
    pub project: bool,

    /// How long the pack may take to open in its check processes, in
    /// seconds, before they are stopped and the pack refused (0: no
    /// limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_OPEN_TIMEOUT_SECS)]
    pub open_timeout: u64,
}

/// How long `xcsh pack add` and `verify` let a pack take to open, in
/// seconds, unless told otherwise.
pub const DEFAULT_OPEN_TIMEOUT_SECS: u64 = 60;

/// `--open-timeout SECS` as a limit: `None` for 0.
fn open_limit(secs: u64) -> Option<Duration> {
    (secs != 0).then(|| Duration::from_secs(secs))
}

impl PackAddArgs {
    /// The `--open-timeout` limit (`None`: no limit).
    pub fn open_limit(&self) -> Option<Duration> {
        open_limit(self.open_timeout)
    }
}

impl PackVerifyArgs {
    /// The `--open-timeout` limit (`None`: no limit).
    pub fn open_limit(&self) -> Option<Duration> {
        open_limit(self.open_timeout)
    }
}

/// Options of `xcsh pack list`.
#[derive(Debug, Args)]
pub struct PackListArgs {
    /// Print JSON, with every tool's descriptor.
    #[arg(long)]
    pub json: bool,
}

/// Options of `xcsh pack remove`.
#[derive(Debug, Args)]
pub struct PackRemoveArgs {
    /// The pack's name, as `xcsh pack list` shows it.
    pub name: String,

    /// Remove it from the working directory's project's installed packs
    /// (.xcsh/packs.json) instead of yours.
    #[arg(long)]
    pub project: bool,
}

/// Options of `xcsh pack verify`.
#[derive(Debug, Args)]
pub struct PackVerifyArgs {
    /// Verify only this pack (default: every installed pack, yours and the
    /// trusted project's).
    pub name: Option<String>,

    /// How long each pack may take to open in its check processes, in
    /// seconds (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_OPEN_TIMEOUT_SECS)]
    pub open_timeout: u64,
}

/// Options of `xcsh pack new`.
#[derive(Debug, Args)]
pub struct PackNewArgs {
    /// The pack's crate name, e.g. my-pack.
    pub name: String,

    /// Where to write it (default: ./NAME); must not exist or be empty.
    pub dir: Option<PathBuf>,

    /// Where the pack's SDK (xcsh-plugin-api and xcsh-pack-test) comes
    /// from: a clone of the xcsh repository (written as a path relative to
    /// the new crate) or a version requirement such as 1.4. Default: the
    /// clone this xcsh was built from, if it is still there, else the
    /// version this xcsh was built with.
    #[arg(long, value_name = "PATH|VERSION")]
    pub sdk: Option<String>,

    /// The xcsh-plugin-api directory of a clone: `--sdk PATH` under its
    /// earlier name.
    #[arg(long, value_name = "DIR", hide = true, conflicts_with = "sdk")]
    pub api_path: Option<PathBuf>,
}

/// `xcsh pack-host` takes no options but the agent's namespace plan: the
/// agent sends what to open.
#[derive(Debug, Args)]
pub struct PackHostArgs {
    /// The namespaces to set up first, and their mounts (JSON, see
    /// `xcsh_isolate_protocol::NamespacePlan`).
    #[arg(long, value_name = "PLAN", hide = true)]
    pub namespaces: Option<String>,
    /// Always empty: a pack process loads only the pack it is sent.
    #[arg(skip)]
    pub packs: PackArgs,
}

/// `xcsh pack-probe LIBRARY`.
#[derive(Debug, Args)]
pub struct PackProbeArgs {
    /// The library to open.
    pub library: PathBuf,
    /// Always empty: only the library named is opened.
    #[arg(skip)]
    pub packs: PackArgs,
}

/// Options of `xcsh tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Print JSON (tools with their parameter schemas, and the load report).
    #[arg(long)]
    pub json: bool,

    /// Exit with status 1 if any pack failed to load, a tool lost a name
    /// conflict or a plugin path was missing.
    #[arg(long)]
    pub strict: bool,

    /// Tool packs to load.
    #[command(flatten)]
    pub packs: PackArgs,
}

/// Options of `xcsh run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The script: JSON lines of `{"tool": NAME, "arguments": {...}, "id": ...}`
    /// (`-` or nothing reads standard input).
    #[arg(value_name = "FILE|-")]
    pub file: Option<PathBuf>,

    /// Human-readable output instead of JSON lines.
    #[arg(long)]
    pub pretty: bool,

    /// Answer yes to every apply a policy puts to a person (a run has
    /// nobody to ask; without this or --decline-all such an apply is
    /// refused and the action stays pending).
    #[arg(long, conflicts_with = "decline_all")]
    pub approve_all: bool,

    /// Answer no to every apply a policy puts to a person: the action is
    /// discarded and the model is told.
    #[arg(long)]
    pub decline_all: bool,

    /// Tool packs to load.
    #[command(flatten)]
    pub packs: PackArgs,
}

/// Options of `xcsh repl`.
#[derive(Debug, Args)]
pub struct ReplArgs {
    /// Tool packs to load.
    #[command(flatten)]
    pub packs: PackArgs,
}

/// Options of `xcsh mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Tool packs to load.
    #[command(flatten)]
    pub packs: PackArgs,
    /// Serve Streamable HTTP on this address (e.g. 127.0.0.1:8765; a bare
    /// port listens on the loopback interface) instead of standard input
    /// and output: one session per MCP session.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: end a session after this many seconds without a request.
    #[arg(long, value_name = "SECONDS", default_value_t = 300, requires = "http")]
    pub idle_timeout: u64,
    /// With --http: the file of the bearer token clients must send, reused
    /// at every start (default: mcp-token in the user's xcsh data directory).
    #[arg(long, value_name = "FILE", requires = "http")]
    pub token_file: Option<std::path::PathBuf>,
    /// With --http: let requests in without the bearer token.
    #[arg(long, requires = "http")]
    pub no_token: bool,
    /// When `resolve` is in the tool list: `always` (for clients that keep
    /// their first list; with nothing pending it says so), or
    /// `while-pending` (listed only while something is pending, with
    /// notifications/tools/list_changed at each change).
    #[arg(long, value_name = "always|while-pending", default_value = "always")]
    pub list_resolve: xcsh_mcp::listing::ResolveListing,
    /// With --http: end a session that has something pending SECONDS
    /// after its client's event stream (GET) closed without a DELETE,
    /// unless the client opens one again (0: only --idle-timeout).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_seconds,
          requires = "http")]
    pub orphan_timeout: Duration,
}

/// Options of `xcsh agent`. The model comes from these flags, else the
/// user's config's `[model]` table (never a project's).
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// The task (nothing: read it from standard input).
    #[arg(value_name = "TASK")]
    pub task: Vec<String>,

    /// Print JSON lines (one per request, answer, call and step down the
    /// tool-choice ladder, then the end) instead of the conversation.
    #[arg(long)]
    pub json: bool,

    /// Which model, and how to reach it.
    #[command(flatten)]
    pub model: ModelArgs,

    /// Stop after N model requests.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub max_turns: u32,

    /// Stop once the requests have used N tokens (input and output).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_tokens: u64,

    /// Stop after SECONDS of wall time (0: no limit); a request out at
    /// that moment ends then.
    #[arg(long, value_name = "SECONDS", default_value_t = 1800)]
    pub time_limit: u64,

    /// The most tokens of one answer (each request's max_tokens).
    #[arg(long, value_name = "N", default_value_t = 4096,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_answer_tokens: u32,

    /// The most bytes of one answer as the server sends it, streamed or
    /// not; a larger one is an error.
    #[arg(long, value_name = "BYTES", default_value_t = AnswerLimits::DEFAULT_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_answer_bytes: u64,

    /// The most bytes of one tool call's arguments; larger ones are an
    /// error.
    #[arg(long, value_name = "BYTES", default_value_t = AnswerLimits::DEFAULT_ARGUMENT_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_argument_bytes: u64,

    /// The most tool calls of one answer that run; the others are refused
    /// back to the model, not run.
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_calls_per_answer: u32,

    /// Give up on one model request after SECONDS, connection to the
    /// answer's last byte (0: only the time limit).
    #[arg(long, value_name = "SECONDS", default_value = "600", value_parser = parse_seconds)]
    pub request_timeout: Duration,

    /// Give up when the model server sends nothing for SECONDS: no
    /// headers yet, or no next chunk (0: only the request's limits). A
    /// whole answer (--no-stream) comes at once when the model is done,
    /// so this is also the longest it may think.
    #[arg(long, value_name = "SECONDS", default_value = "300", value_parser = parse_seconds)]
    pub read_timeout: Duration,

    /// Send a request again, up to N times, when it failed for a reason
    /// that passes (connection refused or reset, HTTP 408, 429, 502, 503,
    /// 504, 529), waiting 1 s, then 2 s, ... (or the server's
    /// Retry-After), within the time limit.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub retries: u32,

    /// Answer yes to every apply a policy puts to a person, when there is
    /// no terminal to ask on.
    #[arg(long, conflicts_with = "decline_all")]
    pub approve_all: bool,

    /// Answer no to every apply a policy puts to a person.
    #[arg(long)]
    pub decline_all: bool,

    /// Tool packs to load.
    #[command(flatten)]
    pub packs: PackArgs,
}

/// A non-negative number of seconds (fractions allowed).
fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .ok_or_else(|| format!("expected a number of seconds, 0 or more, not {text:?}"))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn pack_flags_repeat_and_mix_with_arguments() {
        let cli = Cli::parse_from([
            "xcsh",
            "run",
            "--plugin",
            "a.so",
            "--plugin-dir",
            "d",
            "--plugin",
            "b.so",
            "-",
        ]);
        assert_eq!(cli.packs().plugins, [PathBuf::from("a.so"), "b.so".into()]);
        assert_eq!(cli.packs().plugin_dirs, [PathBuf::from("d")]);
        let Command::Run(args) = cli.command else {
            panic!("expected run");
        };
        assert_eq!(args.file, Some(PathBuf::from("-")));
    }
}
