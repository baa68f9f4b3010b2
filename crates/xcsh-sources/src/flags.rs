//! What a subcommand's command line says about packs and how they run:
//! the flags every session-starting subcommand shares, as clap parses
//! them (the `xcsh` binary flattens [`PackArgs`] into each of them).

use std::path::PathBuf;

use clap::Args;

/// Tool packs named on the command line, on top of `XCSH_PLUGIN_PATH`, the
/// config files and the default directories. They load first, so their
/// tools win name conflicts against later packs.
#[derive(Debug, Clone, Default, Args)]
pub struct PackArgs {
    /// Load the tool pack library at PATH (repeatable).
    #[arg(long = "plugin", value_name = "PATH")]
    pub plugins: Vec<PathBuf>,

    /// Load every tool pack library directly inside DIR (repeatable).
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,

    /// Give up on a tool call, an apply or a reject after SECONDS (0:
    /// never). Default: the config's tool_timeout_secs, else 300.
    #[arg(long = "tool-timeout", value_name = "SECONDS", value_parser = parse_seconds)]
    pub tool_timeout: Option<std::time::Duration>,

    /// Let ast_edit work on paths that resolve outside the working
    /// directory (`..`, absolute paths, symlinks leading out). Only this
    /// flag allows it; no config file can.
    #[arg(long = "allow-outside-root")]
    pub allow_outside_root: bool,
    /// Cut any one result to BYTES of content and details, ending it with
    /// a truncation note (0: no cap). Default: 1048576 (1 MiB).
    #[arg(long = "max-result-bytes", value_name = "BYTES")]
    pub max_result_bytes: Option<usize>,
    /// Run every tool pack in a process of its own (also XCSH_ISOLATE=1;
    /// the config's [isolation] table chooses per pack).
    #[arg(long)]
    pub isolate: bool,

    /// Put the model's applies of NAME's pending actions to a person
    /// (NAME: a tool, a pack, or `all`; repeatable). Flags and configs
    /// only make a policy stricter.
    #[arg(long = "ask", value_name = "NAME")]
    pub ask: Vec<String>,

    /// Refuse every apply of NAME's pending actions; only discard works
    /// (NAME: a tool, a pack, or `all`; repeatable).
    #[arg(long = "deny", value_name = "NAME")]
    pub deny: Vec<String>,
}

/// A non-negative number of seconds.
fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|secs| std::time::Duration::try_from_secs_f64(secs).ok())
        .ok_or_else(|| format!("expected a number of seconds, 0 or more, not {text:?}"))
}
