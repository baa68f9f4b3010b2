//! `xcsh tools`: the loaded tools with their approval policies, then the
//! load report.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use serde_json::{Value, json};
use xcsh_core::Policy;

use xcsh_agent::{Agent, ToolSource};
use xcsh_isolate::describe_sandbox;
use xcsh_sources::Scope;
use xcsh_text::{count, escape};

use crate::cli::ToolsArgs;

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

/// The human-readable listing; every name, label, path and message a pack
/// supplied is escaped ([`escape::line`]).
pub fn to_text(agent: &Agent) -> String {
    let tools = agent.session.tools();
    let sources = agent.tool_sources();
    // A pack's tools share one description: made once per pack (by
    // address), not once per tool, for listings of hundreds of tools.
    let mut described: HashMap<*const (), String> = HashMap::new();
    let rows: Vec<[String; 4]> = tools
        .iter()
        .map(|tool| {
            let source = match sources
                .get(tool.name())
                .copied()
                .unwrap_or(ToolSource::BuiltIn)
            {
                ToolSource::BuiltIn if tool.hidden() => "built-in, hidden".to_owned(),
                ToolSource::BuiltIn => "built-in".to_owned(),
                ToolSource::Pack(pack) => described
                    .entry(std::ptr::from_ref(pack).cast())
                    .or_insert_with(|| describe_loaded(agent, pack))
                    .clone(),
                ToolSource::Installed(pack) => described
                    .entry(std::ptr::from_ref(pack).cast())
                    .or_insert_with(|| describe_installed(pack))
                    .clone(),
            };
            [
                escape::line(tool.name()).into_owned(),
                escape::line(tool.label()).into_owned(),
                policy_of(agent, tool.name())
                    .map_or("-", Policy::as_str)
                    .to_owned(),
                source,
            ]
        })
        .collect();
    let width = |column: usize| {
        rows.iter()
            .map(|row| row[column].chars().count())
            .max()
            .unwrap_or(0)
    };
    let (name_width, label_width) = (width(0), width(1));
    let mut out = format!("Tools ({}):\n", tools.len());
    for [name, label, policy, source] in &rows {
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "  {name:name_width$}  {label:label_width$}  {policy:<5}  {source}"
        );
    }
    let report = &agent.report;
    out.push_str(&format!(
        "\nLoad report: {} loaded, {} failed, {}, {}\n",
        count(report.loaded.len(), "pack"),
        report.failures.len(),
        count(report.conflicts.len(), "conflict"),
        count(agent.warnings.len(), "warning"),
    ));
    let mut lines = crate::render::loaded_packs(report);
    lines.extend(
        report
            .failures
            .iter()
            .map(|f| escape::line(&f.to_string()).into_owned()),
    );
    lines.extend(report.conflicts.iter().map(|conflict| {
        escape::line(&format!(
            "{conflict} (in {})",
            xcsh_text::escape::path(&conflict.path)
        ))
        .into_owned()
    }));
    lines.extend(agent.installed.iter().map(|pack| {
        let record = pack.record();
        let tools: Vec<&str> = record.tools.iter().map(|t| t.name.as_str()).collect();
        escape::line(&format!(
            "Installed tool pack {} {} at {} ({}): {}",
            record.name,
            record.version,
            xcsh_text::escape::path(&record.path),
            installed_state(pack),
            tools.join(", ")
        ))
        .into_owned()
    }));
    lines.extend(
        agent
            .warnings
            .iter()
            .map(|w| escape::line(&w.to_string()).into_owned()),
    );
    for line in lines {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

/// `NAME VERSION (PATH)` of a pack opened at start-up, and how it runs
/// isolated if it does (for a pack offered from its start record: how its
/// last start ran, and `starts at first call`).
fn describe_loaded(agent: &Agent, pack: &xcsh_loader::LoadedPack) -> String {
    let mut source = format!(
        "{} {} ({})",
        escape::line(&pack.name),
        escape::line(&pack.version),
        escape::path(&pack.path)
    );
    if let Some(isolated) = agent.isolation(&pack.path) {
        source.push_str(&format!(
            ", isolated, {}",
            escape::line(&describe_sandbox(&isolated.sandbox))
        ));
        if let Some(may_do) = &isolated.may_do {
            source.push_str(&format!(", {may_do}"));
        }
        if isolated.deferred {
            source.push_str(", starts at first call");
        }
    }
    source
}

/// `NAME VERSION (PATH), installed, not opened` of an installed pack.
fn describe_installed(pack: &xcsh_installed::LazyPack) -> String {
    let record = pack.record();
    format!(
        "{} {} ({}), {}",
        escape::line(&record.name),
        escape::line(&record.version),
        escape::path(&record.path),
        installed_state(pack)
    )
}

/// `installed, not opened`, `installed in project, isolated, opened`…
fn installed_state(pack: &xcsh_installed::LazyPack) -> String {
    format!(
        "installed{}, {}{}",
        match pack.scope() {
            Scope::User => "",
            Scope::Project => " in project",
        },
        if pack.is_isolated() { "isolated, " } else { "" },
        if pack.is_opened() {
            "opened"
        } else {
            "not opened"
        }
    )
}

/// The approval policy of the tool called `name`; `None` for `resolve`,
/// which pushes nothing.
fn policy_of(agent: &Agent, name: &str) -> Option<Policy> {
    (!xcsh_agent::is_resolve(name)).then(|| agent.session.policy(name))
}

/// The JSON listing: `{"tools": [...], "report": {...}}`, each tool with its
/// source and parameter schema, the report as the loader gives it plus
/// `warnings`.
pub fn to_json(agent: &Agent) -> Value {
    let sources = agent.tool_sources();
    let tools: Vec<Value> = agent
        .session
        .tools()
        .iter()
        .map(|tool| {
            let source = match sources
                .get(tool.name())
                .copied()
                .unwrap_or(ToolSource::BuiltIn)
            {
                ToolSource::BuiltIn => json!({"kind": "built-in"}),
                ToolSource::Pack(pack) => {
                    let mut source = json!({
                        "kind": "pack",
                        "pack": pack.name,
                        "version": pack.version,
                        "path": pack.path,
                    });
                    if let Some(built) = pack.built {
                        source["built"] =
                            humantime::format_rfc3339_seconds(built).to_string().into();
                    }
                    if let Some(isolated) = agent.isolation(&pack.path) {
                        source["isolated"] = describe_sandbox(&isolated.sandbox).into();
                        if let Some(may_do) = &isolated.may_do {
                            source["may"] = may_do.clone().into();
                        }
                        if isolated.deferred {
                            source["starts"] = "at first call".into();
                        }
                    }
                    source
                }
                ToolSource::Installed(pack) => {
                    let record = pack.record();
                    json!({
                        "kind": "installed",
                        "pack": record.name,
                        "version": record.version,
                        "path": record.path,
                        "isolated": pack.is_isolated(),
                        "opened": pack.is_opened(),
                        "scope": pack.scope().as_str(),
                    })
                }
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
