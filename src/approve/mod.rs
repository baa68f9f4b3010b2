//! Approval policies and who is asked: the policy table from the configs
//! and flags ([`policy`]), `xcsh run`'s flag answers ([`flags`]) and the
//! REPL's terminal prompt ([`terminal`]). `xcsh mcp` asks through the
//! client's elicitation ([`crate::mcp::elicit`]).

pub mod flags;
pub mod policy;
pub mod terminal;

use crate::agent::Agent;
use crate::cli::PackArgs;
use crate::sources::Settings;
use policy::PolicyTable;

/// The pack name built-in tools are configured under.
pub const BUILT_IN_PACK: &str = "built-in";

/// Gives `agent`'s session the policies of the configs and flags.
pub fn install_policies(agent: &Agent, settings: &Settings, flags: &PackArgs) {
    let table = PolicyTable::from_settings(settings, flags);
    let packs: std::collections::HashMap<String, String> = agent
        .tool_sources()
        .into_iter()
        .filter_map(|(tool, source)| Some((tool.to_owned(), source.pack()?.0.to_owned())))
        .collect();
    agent.session.set_policy(move |tool| {
        let pack = packs.get(tool).map_or(BUILT_IN_PACK, String::as_str);
        table.policy(tool, pack)
    });
}
