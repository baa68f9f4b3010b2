//! `xcsh tools`: the loaded tools with their approval policies, then the
//! load report.

use std::io::{self, Write};

use serde_json::{Value, json};
use xcsh_core::Policy;

use crate::agent::{Agent, ToolSource};
use crate::cli::ToolsArgs;
use crate::render::count;

/// Prints the tools and the load report.
///
/// # Errors
///
/// With `--strict`, any problem loading packs (after printing everything);
/// or standard output cannot be written.
pub fn run(agent: &Agent, args: &ToolsArgs) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&to_json(agent))?)?;
    } else {
        write!(out, "{}", to_text(agent))?;
    }
    out.flush()?;
    let problems = agent.problems().len();
    if args.strict && problems > 0 {
        anyhow::bail!(
            "--strict: {} loading tool packs",
            count(problems, "problem")
        );
    }
    Ok(())
}

/// The human-readable listing.
pub fn to_text(agent: &Agent) -> String {
    let tools = agent.session.tools();
    let name_width = tools
        .iter()
        .map(|t| t.name().chars().count())
        .max()
        .unwrap_or(0);
    let label_width = tools
        .iter()
        .map(|t| t.label().chars().count())
        .max()
        .unwrap_or(0);
    let mut out = format!("Tools ({}):\n", tools.len());
    for tool in &tools {
        let source = match agent.tool_source(tool.name()) {
            ToolSource::BuiltIn if tool.hidden() => "built-in, hidden".to_owned(),
            ToolSource::BuiltIn => "built-in".to_owned(),
            ToolSource::Pack(pack) => {
                format!("{} {} ({})", pack.name, pack.version, pack.path.display())
            }
        };
        out.push_str(&format!(
            "  {:name_width$}  {:label_width$}  {:<5}  {source}\n",
            tool.name(),
            tool.label(),
            policy_of(agent, tool.name()).map_or("-", Policy::as_str),
        ));
    }
    let report = &agent.report;
    out.push_str(&format!(
        "\nLoad report: {} loaded, {} failed, {}, {}\n",
        count(report.loaded.len(), "pack"),
        report.failures.len(),
        count(report.conflicts.len(), "conflict"),
        count(agent.warnings.len(), "warning"),
    ));
    for line in crate::render::loaded_packs(report) {
        out.push_str(&format!("  {line}\n"));
    }
    for failure in &report.failures {
        out.push_str(&format!("  {failure}\n"));
    }
    for conflict in &report.conflicts {
        out.push_str(&format!("  {conflict} (in {})\n", conflict.path.display()));
    }
    for warning in &agent.warnings {
        out.push_str(&format!("  {warning}\n"));
    }
    out
}

/// The approval policy of the tool called `name`; `None` for `resolve`,
/// which pushes nothing.
fn policy_of(agent: &Agent, name: &str) -> Option<Policy> {
    (!crate::agent::is_resolve(name)).then(|| agent.session.policy(name))
}

/// The JSON listing: `{"tools": [...], "report": {...}}`, each tool with its
/// source and parameter schema, the report as the loader gives it plus
/// `warnings`.
pub fn to_json(agent: &Agent) -> Value {
    let tools: Vec<Value> = agent
        .session
        .tools()
        .iter()
        .map(|tool| {
            let source = match agent.tool_source(tool.name()) {
                ToolSource::BuiltIn => json!({"kind": "built-in"}),
                ToolSource::Pack(pack) => json!({
                    "kind": "pack",
                    "pack": pack.name,
                    "version": pack.version,
                    "path": pack.path,
                }),
            };
            json!({
                "name": tool.name(),
                "label": tool.label(),
                "description": tool.description(),
                "hidden": tool.hidden(),
                "policy": policy_of(agent, tool.name()),
                "source": source,
                "parameters": tool.parameters(),
            })
        })
        .collect();
    let mut report = agent.report.to_json();
    report["warnings"] = agent
        .warnings
        .iter()
        .map(|w| Value::String(w.to_string()))
        .collect();
    json!({ "tools": tools, "report": report })
}
