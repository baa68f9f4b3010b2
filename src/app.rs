//! What the binary does, start to finish: parse the command line, set up
//! logging, find and load tool packs (before anything is served), run the
//! subcommand.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Parser as _;
use tracing::Level;

use xcsh_agent::Agent;
use xcsh_agent::approve::{self, flags::FlagAnswer};
use xcsh_isolate as isolate;
use xcsh_sources::{self as sources, PLUGIN_PATH_ENV, RunPolicy, UserDirs};

use crate::cli::{Cli, Command, PackCommand};
use crate::terminal_approver::TerminalApprover;
use crate::{agent_cmd, journal, pack, repl, run, template, tools, trust};

/// Runs the command line of this process.
///
/// # Errors
///
/// Whatever stopped the command; `main` prints it once.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    if let Command::Pack(PackCommand::New(args)) = &cli.command {
        crate::logging::init(cli.verbose, Level::WARN);
        template::run(args)?;
        return Ok(ExitCode::SUCCESS);
    }
    // `tools` prints the load report itself; warnings on stderr would say
    // everything twice.
    let quiet_level = match cli.command {
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
    };
    crate::logging::init(cli.verbose, quiet_level);
    if let Command::PackHost(_) = cli.command {
        isolate::serve::serve()?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Command::PackProbe(args) = &cli.command {
        crate::first_seen::probe_here(&args.library);
        return Ok(ExitCode::SUCCESS);
    }

    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    if let Command::Pack(command) = &cli.command {
        let user = UserDirs::from_os();
        let registries = sources::Registries::new(&cwd, user.data.as_ref())?;
        match command {
            PackCommand::Add(args) => pack::add(args, &cwd, &registries)?,
            PackCommand::List(args) => pack::list(args, &registries)?,
            PackCommand::Remove(args) => pack::remove(args, &registries)?,
            PackCommand::Verify(args) => pack::verify(args, &cwd, &registries)?,
            PackCommand::New(_) => unreachable!("written above"),
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Command::Trust(args) = &cli.command {
        trust::run(args, &cwd, &UserDirs::from_os())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Command::Undo(args) = &cli.command {
        crate::undo::run(args, &cwd, &UserDirs::from_os())?;
        return Ok(ExitCode::SUCCESS);
    }
    if let Command::Journal(args) = &cli.command {
        journal::show(args, &cwd, &UserDirs::from_os())?;
        return Ok(ExitCode::SUCCESS);
    }
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
    let collected = sources::collect(cli.packs(), &cwd, env.as_deref(), &UserDirs::from_os())?;
    let mut discovery = sources::discover(&collected.sources);
    if let Some((dir, record)) = &collected.settings.project.trusted {
        sources::project::hold_back_new_packs(&mut discovery, dir, record);
    }
    discovery.warnings.splice(0..0, collected.skipped);
    for warning in &discovery.warnings {
        tracing::warn!("{warning}");
    }
    let mut policy = RunPolicy::new(cli.packs().tool_timeout, &collected.settings)
        .with_max_result_bytes(cli.packs().max_result_bytes);
    policy.allow_outside_root = cli.packs().allow_outside_root;
    policy.isolation.all |= cli.packs().isolate
        || isolate::policy::env_asks_for_isolation(
            std::env::var_os(isolate::ISOLATE_ENV).as_deref(),
        );
    policy.isolation.verbosity = cli.verbose;
    policy.isolation.protected = protected_paths(&collected.sources, &discovery.packs);
    policy.first_seen = Some(crate::first_seen::check(policy.tool_timeout));
    policy.isolation.start_records =
        xcsh_sources::UserDirs::cache().map(|dir| dir.join("isolated-starts"));
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
    agent.offer_installed(registries.clone(), &policy);
    approve::install_policies(&agent, &collected.settings, cli.packs());
    let user_data = UserDirs::from_os().data;
    xcsh_agent::journal::install(&agent, &collected.settings, &cwd, user_data.as_deref());
    xcsh_agent::undo::install(&agent, &collected.settings, &cwd, user_data.as_deref());
    if let Command::Mcp(args) = &cli.command
        && let Some(addr) = &args.http
    {
        // One session per MCP session, each started as the first was.
        let (settings, flags) = (collected.settings.clone(), cli.packs().clone());
        let user_data = user_data.clone();
        let start = move || -> anyhow::Result<Agent> {
            let discovery = sources::Discovery {
                packs: packs.clone(),
                from_project: from_project.clone(),
                warnings: Vec::new(),
            };
            let mut agent = Agent::start(&cwd, discovery, &policy)?;
            agent.offer_installed(registries.clone(), &policy);
            approve::install_policies(&agent, &settings, &flags);
            xcsh_agent::journal::install(&agent, &settings, &cwd, user_data.as_deref());
            xcsh_agent::undo::install(&agent, &settings, &cwd, user_data.as_deref());
            Ok(agent)
        };
        drop(agent);
        let token_file =
            if args.no_token {
                None
            } else {
                let default = || {
                    UserDirs::from_os()
                        .data
                        .map(|data| data.join(xcsh_mcp::auth::TOKEN_FILE_NAME))
                };
                Some(args.token_file.clone().or_else(default).context(
                    "no user data directory for the token file; name one with --token-file",
                )?)
            };
        let options = xcsh_mcp::http::HttpOptions {
            addr: xcsh_mcp::http::parse_addr(addr)?,
            idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
            token_file,
            listing: args.list_resolve,
            orphan_timeout: (!args.orphan_timeout.is_zero()).then_some(args.orphan_timeout),
        };
        xcsh_mcp::http::serve(options, Arc::new(start))?;
        return Ok(ExitCode::SUCCESS);
    }
    // Who answers an `ask`: the terminal's person, the run's flags; the
    // MCP server asks its client (see `xcsh_mcp::serve`).
    match &cli.command {
        Command::Run(args) => {
            agent
                .session
                .set_approver(Arc::new(match (args.approve_all, args.decline_all) {
                    (true, _) => FlagAnswer::ApproveAll,
                    (_, true) => FlagAnswer::DeclineAll,
                    _ => FlagAnswer::Nobody(approve::flags::NO_PERSON_IN_RUN),
                }))
        }
        Command::Repl(_) => agent.session.set_approver(Arc::new(TerminalApprover)),
        Command::Agent(args) => agent_cmd::set_approver(&agent, args),
        _ => {}
    }

    match &cli.command {
        Command::Tools(args) => tools::run(&agent, args)?,
        Command::Run(args) => run::run(&agent, args)?,
        Command::Repl(_) => repl::run(&agent)?,
        Command::Mcp(args) => xcsh_mcp::serve(agent, args.list_resolve)?,
        Command::Agent(args) => return agent_cmd::run(&agent, args, &collected.settings),
        Command::Pack(_) | Command::Trust(_) | Command::Journal(_) | Command::Undo(_) => {
            unreachable!("handled before any pack loads")
        }
        Command::PackHost(_) | Command::PackProbe(_) => unreachable!("served above"),
    }
    Ok(ExitCode::SUCCESS)
}

/// What no isolated pack may change: xcsh's own directories (config,
/// data, cache) and every pack source and library of this session.
fn protected_paths(
    sources: &[sources::Source],
    packs: &[std::path::PathBuf],
) -> isolate::Protected {
    let dirs = UserDirs::from_os();
    let cache = crate::first_seen::cache_dir().and_then(|dir| dir.parent().map(Into::into));
    isolate::Protected {
        own_dirs: [dirs.config, dirs.data, cache]
            .into_iter()
            .flatten()
            .collect(),
        paths: sources
            .iter()
            .map(|source| source.path.clone())
            .chain(packs.iter().cloned())
            .collect(),
    }
}
