//! Approval policies and who is asked: the policy table from the configs
//! and flags ([`policy`]), `xcsh run`'s flag answers ([`flags`]) and the
//! REPL's terminal prompt ([`terminal`]). `xcsh mcp` asks through the
//! client's elicitation ([`crate::mcp::elicit`]).

pub mod flags;
pub mod policy;
pub mod terminal;

use crate::agent::{Agent, ToolSource};
use crate::cli::PackArgs;
use crate::sources::Settings;
use policy::PolicyTable;

/// The pack name built-in tools are configured under.
pub const BUILT_IN_PACK: &str = "built-in";

/// The pack of the tool called `name` in `agent`'s session.
pub fn pack_of<'a>(agent: &'a Agent, name: &str) -> &'a str {
    match agent.tool_source(name) {
        ToolSource::BuiltIn => BUILT_IN_PACK,
        ToolSource::Pack(pack) => &pack.name,
        ToolSource::Installed(pack) => &pack.record().name,
    }
}

/// Gives `agent`'s session the policies of the configs and flags.
pub fn install_policies(agent: &Agent, settings: &Settings, flags: &PackArgs) {
    let table = PolicyTable::from_settings(settings, flags);
    let packs: std::collections::HashMap<String, String> = agent
        .tool_names()
        .into_iter()
        .map(|tool| {
            let pack = pack_of(agent, &tool).to_owned();
            (tool, pack)
        })
        .collect();
    agent.session.set_policy(move |tool| {
        let pack = packs.get(tool).map_or(BUILT_IN_PACK, String::as_str);
        table.policy(tool, pack)
    });
}
