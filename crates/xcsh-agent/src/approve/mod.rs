//! Approval policies and who is asked: the policy table from the configs
//! and flags ([`policy`]) and `xcsh run`'s flag answers ([`flags`]). The
//! REPL asks at its terminal and `xcsh mcp` through the client's
//! elicitation: those approvers live with their front ends.

pub mod flags;
pub mod policy;

use xcsh_sources::{PackArgs, Settings};

use crate::agent::Agent;
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
