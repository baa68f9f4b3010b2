//! What the binary does, start to finish: parse the command line, set up
//! logging, and hand the subcommand to its function below. The session
//! front ends (`tools`, `run`, `repl`, `mcp`, `agent`) start their session
//! through [`start_session`], which finds and loads the tool packs before
//! anything is served; the others open no pack.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Parser as _;
use tracing::Level;

use xcsh_agent::Agent;
use xcsh_agent::approve::{self, flags::FlagAnswer};
use xcsh_isolate as isolate;
use xcsh_sources::{
    self as sources, PLUGIN_PATH_ENV, PackArgs, RunPolicy, Settings, UsedRegistry, UserDirs,
};

use crate::cli::{
    AgentArgs, Cli, Command, JournalArgs, McpArgs, PackCommand, PackProbeArgs, ReplArgs, RunArgs,
    ToolsArgs, TrustArgs, UndoArgs,
};
use crate::terminal_approver::TerminalApprover;

/// Runs the command line of this process.
///
/// # Errors
///
/// Whatever stopped the command; `main` prints it once.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    crate::logging::init(cli.verbose, quiet_level(&cli.command));
    let verbose = cli.verbose;
    match &cli.command {
        Command::Tools(args) => tools_command(args, verbose),
        Command::Run(args) => run_command(args, verbose),
        Command::Repl(args) => repl_command(args, verbose),
        Command::Mcp(args) => mcp_command(args, verbose),
        Command::Agent(args) => agent_command(args, verbose),
        Command::Pack(command) => pack_command(command),
        Command::Trust(args) => trust_command(args),
        Command::Undo(args) => undo_command(args),
        Command::Journal(args) => journal_command(args),
        Command::PackHost(args) => pack_host_command(args),
        Command::PackProbe(args) => pack_probe_command(args),
    }
}

/// The log level without `-v`. `tools` prints the load report itself, so
/// warnings on stderr would say everything twice.
fn quiet_level(command: &Command) -> Level {
    match command {
        Command::Tools(_) => Level::ERROR,
        Command::Run(_)
        | Command::Repl(_)
        | Command::Mcp(_)
        | Command::Agent(_)
        | Command::Pack(_)
        | Command::Trust(_)
        | Command::PackHost(_)
        | Command::PackProbe(_)
        | Command::Journal(_)
        | Command::Undo(_) => Level::WARN,
    }
}

/// `xcsh tools`: the tools and the load report.
fn tools_command(args: &ToolsArgs, verbose: u8) -> anyhow::Result<ExitCode> {
    let started = start_session(&args.packs, verbose)?;
    crate::tools::run(&started.agent, args)?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh run`: a scripted session. Nobody is there to ask, so the flags
/// answer an `ask`.
fn run_command(args: &RunArgs, verbose: u8) -> anyhow::Result<ExitCode> {
    let started = start_session(&args.packs, verbose)?;
    let answer = match (args.approve_all, args.decline_all) {
        (true, _) => FlagAnswer::ApproveAll,
        (_, true) => FlagAnswer::DeclineAll,
        _ => FlagAnswer::Nobody(approve::flags::NO_PERSON_IN_RUN),
    };
    started.agent.session.set_approver(Arc::new(answer));
    crate::run::run(&started.agent, args)?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh repl`: an interactive session; the person at the terminal
/// answers an `ask`.
fn repl_command(args: &ReplArgs, verbose: u8) -> anyhow::Result<ExitCode> {
    let started = start_session(&args.packs, verbose)?;
    started
        .agent
        .session
        .set_approver(Arc::new(TerminalApprover));
    crate::repl::run(&started.agent)?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh mcp`: the session served over standard input and output, or with
/// `--http` one session per MCP session. The server asks its client for
/// an `ask` (see `xcsh_mcp::serve`).
fn mcp_command(args: &McpArgs, verbose: u8) -> anyhow::Result<ExitCode> {
    let Started { agent, plan } = start_session(&args.packs, verbose)?;
    let Some(addr) = &args.http else {
        xcsh_mcp::serve(agent, args.list_resolve)?;
        return Ok(ExitCode::SUCCESS);
    };
    // The first session served only to load and report the packs once;
    // every MCP session starts one of its own, as this one was.
    drop(agent);
    let token_file = if args.no_token {
        None
    } else {
        // In the private directory, which no isolated pack can read.
        let default = || -> anyhow::Result<PathBuf> {
            let data = UserDirs::from_os()
                .data
                .context("no user data directory for the token file; name one with --token-file")?;
            let dir = sources::private_dir::prepare(&data).map_err(anyhow::Error::msg)?;
            Ok(dir.join(xcsh_mcp::auth::TOKEN_FILE_NAME))
        };
        Some(match &args.token_file {
            Some(path) => path.clone(),
            None => default()?,
        })
    };
    let options = xcsh_mcp::http::HttpOptions {
        addr: xcsh_mcp::http::parse_addr(addr)?,
        idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        token_file,
        listing: args.list_resolve,
        orphan_timeout: (!args.orphan_timeout.is_zero()).then_some(args.orphan_timeout),
    };
    xcsh_mcp::http::serve(options, Arc::new(move || plan.start_another()))?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh agent`: a task for a model, in a session.
fn agent_command(args: &AgentArgs, verbose: u8) -> anyhow::Result<ExitCode> {
    let started = start_session(&args.packs, verbose)?;
    crate::agent_cmd::set_approver(&started.agent, args);
    crate::agent_cmd::run(&started.agent, args, &started.plan.settings)
}

/// `xcsh pack new|add|list|remove|verify`: no session; `new` does not
/// even read the working directory.
fn pack_command(command: &PackCommand) -> anyhow::Result<ExitCode> {
    if let PackCommand::New(args) = command {
        crate::template::run(args)?;
        return Ok(ExitCode::SUCCESS);
    }
    let cwd = working_directory()?;
    let user = UserDirs::from_os();
    let registries = sources::Registries::new(&cwd, user.data.as_ref())?;
    match command {
        PackCommand::Add(args) => crate::pack::add(args, &cwd, &registries)?,
        PackCommand::List(args) => crate::pack::list(args, &registries)?,
        PackCommand::Remove(args) => crate::pack::remove(args, &registries)?,
        PackCommand::Verify(args) => crate::pack::verify(args, &cwd, &registries)?,
        PackCommand::New(_) => unreachable!("written above"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `xcsh trust`: record, list or revoke a trusted project directory.
fn trust_command(args: &TrustArgs) -> anyhow::Result<ExitCode> {
    crate::trust::run(args, &working_directory()?, &UserDirs::from_os())?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh undo`: put back what an apply changed.
fn undo_command(args: &UndoArgs) -> anyhow::Result<ExitCode> {
    crate::undo::run(args, &working_directory()?, &UserDirs::from_os())?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh journal`: the recent entries, or `--verify` of the chain.
fn journal_command(args: &JournalArgs) -> anyhow::Result<ExitCode> {
    crate::journal::show(args, &working_directory()?, &UserDirs::from_os())?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh pack-host` (hidden): serve one isolated pack to the agent that
/// started this process, first in the namespaces it planned, if any (it
/// returns from setting them up as pid 2 inside them).
fn pack_host_command(args: &crate::cli::PackHostArgs) -> anyhow::Result<ExitCode> {
    #[cfg(target_os = "linux")]
    if let Some(plan) = &args.namespaces
        && let Err(error) = xcsh_pack_host::namespaces::enter(plan)
    {
        // The agent reads this line: nothing ran inside.
        eprintln!("{}{error}", xcsh_pack_host::namespaces::NAMESPACES_FAILED);
        return Ok(ExitCode::FAILURE);
    }
    #[cfg(not(target_os = "linux"))]
    if args.namespaces.is_some() {
        anyhow::bail!("namespaces need Linux");
    }
    xcsh_pack_host::serve()?;
    Ok(ExitCode::SUCCESS)
}

/// `xcsh pack-probe LIBRARY` (hidden): the first-seen check's child.
fn pack_probe_command(args: &PackProbeArgs) -> anyhow::Result<ExitCode> {
    crate::first_seen::probe_here(&args.library);
    Ok(ExitCode::SUCCESS)
}

fn working_directory() -> anyhow::Result<PathBuf> {
    std::env::current_dir().context("cannot read the working directory")
}

/// A session started for a front end, with what started it.
struct Started {
    agent: Agent,
    plan: SessionPlan,
}

/// What a session is started from once the packs are found: enough to
/// start another alike (`xcsh mcp --http` starts one per MCP session).
struct SessionPlan {
    cwd: PathBuf,
    packs: Vec<PathBuf>,
    from_project: Vec<PathBuf>,
    policy: RunPolicy,
    registries: Vec<UsedRegistry>,
    settings: Settings,
    flags: PackArgs,
    user_data: Option<PathBuf>,
}

impl SessionPlan {
    /// Another session like the first, without its warnings (they were
    /// logged once).
    fn start_another(&self) -> anyhow::Result<Agent> {
        let discovery = sources::Discovery {
            packs: self.packs.clone(),
            from_project: self.from_project.clone(),
            warnings: Vec::new(),
        };
        let mut agent = Agent::start(&self.cwd, discovery, &self.policy)?;
        self.equip(&mut agent);
        Ok(agent)
    }

    /// What every session gets once its packs are loaded: the installed
    /// packs, the approval policies, the journal and undo.
    fn equip(&self, agent: &mut Agent) {
        agent.offer_installed(self.registries.clone(), &self.policy);
        approve::install_policies(agent, &self.settings, &self.flags);
        let user_data = self.user_data.as_deref();
        xcsh_agent::journal::install(agent, &self.settings, &self.cwd, user_data);
        xcsh_agent::undo::install(agent, &self.settings, &self.cwd, user_data);
    }
}

/// Starts the session of a front end: collects the pack sources (flags,
/// environment, config files, a trusted project's), discovers the
/// libraries, logs what was skipped, makes the run policy, starts the
/// agent with its packs and equips it ([`SessionPlan::equip`]).
fn start_session(flags: &PackArgs, verbose: u8) -> anyhow::Result<Started> {
    let cwd = working_directory()?;
    // The user's registry is read and parsed on another thread while the
    // session starts (configs, built-ins, start-up packs): most of it is
    // recorded schemas, and with many installed packs it is the largest
    // part of start-up.
    let user_registry = UserDirs::from_os().data.map(|data| {
        std::thread::spawn(move || {
            sources::UsedRegistry::user(data.join(sources::REGISTRY_FILE_NAME))
        })
    });
    let env = std::env::var_os(PLUGIN_PATH_ENV);
    let collected = sources::collect(flags, &cwd, env.as_deref(), &UserDirs::from_os())?;
    let mut discovery = sources::discover(&collected.sources);
    if let Some((dir, record)) = &collected.settings.project.trusted {
        sources::project::hold_back_new_packs(&mut discovery, dir, record);
    }
    discovery.warnings.splice(0..0, collected.skipped);
    for warning in &discovery.warnings {
        tracing::warn!("{warning}");
    }
    let policy = run_policy(
        flags,
        verbose,
        &collected.settings,
        &collected.sources,
        &discovery,
    )?;
    let (packs, from_project) = (discovery.packs.clone(), discovery.from_project.clone());
    let mut agent = Agent::start(&cwd, discovery, &policy)?;
    let mut registries = Vec::new();
    if let Some(reading) = user_registry {
        let read = reading
            .join()
            .map_err(|_| anyhow::anyhow!("reading the pack registry panicked"))?;
        registries.push(read?);
    }
    registries.extend(collected.project_registry);
    let plan = SessionPlan {
        cwd,
        packs,
        from_project,
        policy,
        registries,
        settings: collected.settings,
        flags: flags.clone(),
        user_data: UserDirs::from_os().data,
    };
    plan.equip(&mut agent);
    // Once, for the first session: a misspelled table is the user's, not
    // each MCP session's.
    for warning in agent.check_pack_tables(&plan.settings) {
        tracing::warn!("{warning}");
    }
    Ok(Started { agent, plan })
}

/// The run policy of a session: the config's, then the flags (time limit,
/// result cap, `--allow-outside-root`, `--isolate` or `XCSH_ISOLATE`),
/// and what isolation protects and where it keeps start records.
fn run_policy(
    flags: &PackArgs,
    verbose: u8,
    settings: &Settings,
    sources: &[sources::Source],
    discovery: &sources::Discovery,
) -> anyhow::Result<RunPolicy> {
    let mut policy =
        RunPolicy::new(flags.tool_timeout, settings).with_max_result_bytes(flags.max_result_bytes);
    policy.allow_outside_root = flags.allow_outside_root;
    policy.isolation.all |= flags.isolate
        || isolate::env_asks_for_isolation(std::env::var_os(isolate::ISOLATE_ENV).as_deref());
    policy.isolation.verbosity = verbose;
    policy.isolation.protected = protected_paths(sources, &discovery.packs)?;
    policy.first_seen = Some(crate::first_seen::check(policy.tool_timeout));
    policy.isolation.start_records = UserDirs::cache().map(|dir| dir.join("isolated-starts"));
    Ok(policy)
}

/// What no isolated pack may change: xcsh's own directories (config,
/// data, cache) and every pack source and library of this session; and
/// what none may read: the private directory of the data directory (the
/// journal's key, the MCP token), made and checked here, before any pack
/// starts.
///
/// # Errors
///
/// The private directory cannot be made, or is refused (a link, or open
/// to others: one line naming it and the fix).
fn protected_paths(
    sources: &[sources::Source],
    packs: &[PathBuf],
) -> anyhow::Result<isolate::Protected> {
    let dirs = UserDirs::from_os();
    let cache = crate::first_seen::cache_dir().and_then(|dir| dir.parent().map(Path::to_path_buf));
    let hidden = match &dirs.data {
        Some(data) => {
            let dir = sources::private_dir::prepare(data).map_err(anyhow::Error::msg)?;
            // Canonical: the sandbox compares it with the paths it sees.
            vec![std::fs::canonicalize(&dir).unwrap_or(dir)]
        }
        None => Vec::new(),
    };
    Ok(isolate::Protected {
        hidden,
        own_dirs: [dirs.config, dirs.data, cache]
            .into_iter()
            .flatten()
            .collect(),
        paths: sources
            .iter()
            .map(|source| source.path.clone())
            .chain(packs.iter().cloned())
            .collect(),
    })
}
