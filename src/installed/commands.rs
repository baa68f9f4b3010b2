//! `xcsh pack add`, `list`, `remove` and `verify`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde_json::{Value, json};
use xcsh_loader::TrustPolicy;

use super::build::build_pack_crate;
use super::check::check_twice;
use super::compare::difference;
use super::registry::{FileStamp, FileState, PackRecord, Registry};
use crate::cli::{PackAddArgs, PackListArgs, PackRemoveArgs, PackVerifyArgs};
use crate::escape;
use crate::project::shell_word;
use crate::render::count;

/// The names of the built-in tools, which always win.
fn builtin_names() -> Vec<String> {
    let session = xcsh_core::Session::new(".");
    let _ = xcsh_ast_edit::register_builtins_with(&session, Default::default());
    session
        .tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

/// `xcsh pack add PATH`: checks the pack in two child processes and records
/// it in the registry at `registry`.
///
/// # Errors
///
/// The pack cannot be built, read, trusted or opened, a tool name
/// conflicts, or the registry cannot be written.
pub fn add(args: &PackAddArgs, cwd: &Path, registry_path: &Path) -> anyhow::Result<()> {
    let mut path = cwd.join(&args.path);
    if path.is_dir() {
        path = build_pack_crate(&path)?;
    }
    let shown = path.display().to_string();
    let fail = |why: String| anyhow::anyhow!("cannot add {shown}: {why}");
    // Owner and mode first: a pack others can write is refused as loading
    // refuses it.
    TrustPolicy::new()
        .check(&path)
        .map_err(|e| fail(e.to_string()))?;
    let path = std::fs::canonicalize(&path).map_err(|e| fail(e.to_string()))?;
    let bytes = std::fs::read(&path).map_err(|e| fail(format!("cannot read it: {e}")))?;
    let metadata = std::fs::metadata(&path).map_err(|e| fail(e.to_string()))?;
    let stamp = FileStamp::of(&metadata, xcsh_loader::sha256_hex(&bytes));
    drop(bytes);
    let (opened, tools) = check_twice(&path, cwd).map_err(fail)?;
    if stamp.compare(&path) != FileState::Unchanged
        || xcsh_loader::sha256_hex(&std::fs::read(&path).map_err(|e| fail(e.to_string()))?)
            != stamp.sha256
    {
        return Err(fail(
            "it changed while it was being checked; add it again once it is written".into(),
        ));
    }
    let mut registry = Registry::load(registry_path)?;
    let builtins = builtin_names();
    let mut replaced = Vec::new();
    for tool in &tools {
        let conflict = format!("Tool name \"{}\" conflicts with existing tool", tool.name);
        if builtins.contains(&tool.name) {
            return Err(fail(format!(
                "{conflict} (built-in; built-in tools always win)"
            )));
        }
        if let Some(owner) = registry.owner_of(&tool.name, &opened.name) {
            if !args.replace {
                return Err(fail(format!(
                    "{conflict} (of installed pack {}; to remove that pack instead: --replace)",
                    owner.name
                )));
            }
            replaced.push((owner.name.clone(), tool.name.clone()));
        }
    }
    let mut out = std::io::stdout().lock();
    for (owner, tool) in replaced {
        if let Some(old) = registry.packs.remove(&owner) {
            writeln!(
                out,
                "Removed pack {} {}: its tool {} conflicts with {}",
                escape::line(&old.name),
                escape::line(&old.version),
                escape::line(&tool),
                escape::line(&opened.name)
            )?;
        }
    }
    let verb = if registry.packs.contains_key(&opened.name) {
        "Updated"
    } else {
        "Added"
    };
    let record = PackRecord {
        name: opened.name.clone(),
        version: opened.version.clone(),
        abi_version: opened.abi_version.clone(),
        path: path.clone(),
        file: stamp,
        isolated: args.isolate,
        tools,
        failure: None,
    };
    let names: Vec<&str> = record.tools.iter().map(|t| t.name.as_str()).collect();
    let line = format!(
        "{verb} pack {} {} ({}{}): {}",
        record.name,
        record.version,
        path.display(),
        if record.isolated { ", isolated" } else { "" },
        names.join(", ")
    );
    registry.packs.insert(record.name.clone(), record);
    registry.save(registry_path)?;
    writeln!(out, "{}", escape::line(&line))?;
    Ok(())
}

/// A pack's state as `list` shows it, and what is wrong, if anything.
fn state_of(pack: &PackRecord) -> (&'static str, Option<String>) {
    match pack.file.compare(&pack.path) {
        FileState::Missing => (
            "missing",
            Some(format!(
                "{} is missing (to forget it: xcsh pack remove {})",
                pack.path.display(),
                pack.name
            )),
        ),
        FileState::Changed(what) => (
            "changed",
            Some(format!(
                "{what} since it was added (to accept it: xcsh pack add {})",
                shell_word(&pack.path)
            )),
        ),
        FileState::Unchanged => match &pack.failure {
            Some(failure) => ("failed", Some(format!("failed to open: {failure}"))),
            None => ("ok", None),
        },
    }
}

/// `xcsh pack list`: each installed pack, its tools, mode and state.
///
/// # Errors
///
/// The registry cannot be read, or standard output written.
pub fn list(args: &PackListArgs, registry_path: &Path) -> anyhow::Result<()> {
    let registry = Registry::load(registry_path)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let packs: Vec<Value> = registry
            .packs
            .values()
            .map(|pack| {
                let (state, detail) = state_of(pack);
                json!({
                    "name": pack.name,
                    "version": pack.version,
                    "abiVersion": pack.abi_version,
                    "path": pack.path,
                    "size": pack.file.size,
                    "sha256": pack.file.sha256,
                    "isolated": pack.isolated,
                    "state": state,
                    "detail": detail,
                    "tools": pack.tools,
                })
            })
            .collect();
        let listing = json!({"registry": registry_path, "packs": packs});
        writeln!(out, "{}", serde_json::to_string_pretty(&listing)?)?;
        return Ok(());
    }
    if registry.packs.is_empty() {
        writeln!(out, "No installed packs (to add one: xcsh pack add PATH)")?;
        return Ok(());
    }
    writeln!(
        out,
        "Installed packs ({}, {}):",
        registry.packs.len(),
        escape::line(&registry_path.display().to_string())
    )?;
    let rows: Vec<[String; 5]> = registry
        .packs
        .values()
        .map(|pack| {
            let tools: Vec<&str> = pack.tools.iter().map(|t| t.name.as_str()).collect();
            [
                format!("{} {}", pack.name, pack.version),
                state_of(pack).0.to_owned(),
                if pack.isolated {
                    "isolated"
                } else {
                    "in-process"
                }
                .to_owned(),
                tools.join(", "),
                pack.path.display().to_string(),
            ]
            .map(|cell| escape::line(&cell).into_owned())
        })
        .collect();
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2, w3) = (width(0), width(1), width(2), width(3));
    for [pack, state, mode, tools, path] in &rows {
        writeln!(
            out,
            "  {pack:w0$}  {state:w1$}  {mode:w2$}  {tools:w3$}  {path}"
        )?;
    }
    for pack in registry.packs.values() {
        if let (_, Some(detail)) = state_of(pack) {
            writeln!(
                out,
                "  {}: {}",
                escape::line(&pack.name),
                escape::line(&detail)
            )?;
        }
    }
    Ok(())
}

/// `xcsh pack remove NAME`.
///
/// # Errors
///
/// No installed pack of that name, or the registry cannot be written.
pub fn remove(args: &PackRemoveArgs, registry_path: &Path) -> anyhow::Result<()> {
    let mut registry = Registry::load(registry_path)?;
    let Some(pack) = registry.packs.remove(&args.name) else {
        anyhow::bail!(
            "no installed pack named {} (see: xcsh pack list)",
            args.name
        );
    };
    registry.save(registry_path)?;
    println!(
        "{}",
        escape::line(&format!(
            "Removed pack {} {} ({})",
            pack.name,
            pack.version,
            pack.path.display()
        ))
    );
    Ok(())
}

/// `xcsh pack verify [NAME]`: re-hashes each pack and checks it again in
/// two child processes; its tools must be the ones recorded.
///
/// # Errors
///
/// Any pack failed (after every line is printed), or no pack of that name.
pub fn verify(args: &PackVerifyArgs, cwd: &Path, registry_path: &Path) -> anyhow::Result<()> {
    let mut registry = Registry::load(registry_path)?;
    let names: Vec<String> = match &args.name {
        Some(name) if !registry.packs.contains_key(name) => {
            anyhow::bail!("no installed pack named {name} (see: xcsh pack list)")
        }
        Some(name) => vec![name.clone()],
        None => registry.packs.keys().cloned().collect(),
    };
    let mut out = std::io::stdout().lock();
    let mut bad = 0;
    let mut cleared = false;
    for name in &names {
        let pack = &registry.packs[name];
        let verdict = verify_one(pack, cwd);
        let line = match &verdict {
            Ok(()) => format!("ok       {} {}", pack.name, pack.version),
            Err((state, why)) => format!("{state:8} {} {}: {why}", pack.name, pack.version),
        };
        writeln!(out, "{}", escape::line(&line))?;
        if verdict.is_err() {
            bad += 1;
        } else if let Some(pack) = registry.packs.get_mut(name)
            && pack.failure.take().is_some()
        {
            cleared = true;
        }
    }
    if cleared {
        registry.save(registry_path)?;
    }
    if bad > 0 {
        anyhow::bail!(
            "{} of {} failed verification",
            bad,
            count(names.len(), "installed pack")
        );
    }
    Ok(())
}

fn verify_one(pack: &PackRecord, cwd: &Path) -> Result<(), (&'static str, String)> {
    let again = format!("to accept it: xcsh pack add {}", shell_word(&pack.path));
    match pack.file.compare(&pack.path) {
        FileState::Missing => {
            return Err((
                "missing",
                format!(
                    "{} is missing (to forget it: xcsh pack remove {})",
                    pack.path.display(),
                    pack.name
                ),
            ));
        }
        FileState::Changed(what) => {
            return Err(("changed", format!("{what} since it was added ({again})")));
        }
        FileState::Unchanged => {}
    }
    let policy = TrustPolicy::new().with_installed_pin(&pack.path, &pack.file.sha256);
    policy.check(&pack.path).map_err(|e| match e {
        xcsh_loader::LoadError::ChangedSinceAdded { actual, .. } => (
            "changed",
            format!(
                "its SHA-256 is {actual}, added {} ({again})",
                pack.file.sha256
            ),
        ),
        other => ("refused", other.to_string()),
    })?;
    let (opened, tools) = check_twice(&pack.path, cwd).map_err(|e| ("failed", e))?;
    let changed = if opened.name == pack.name {
        difference(&pack.tools, &tools)
    } else {
        Some(format!("pack name {} then {}", pack.name, opened.name))
    };
    if let Some(changed) = changed {
        return Err((
            "changed",
            format!("it now offers other tools than when it was added: {changed} ({again})"),
        ));
    }
    Ok(())
}

/// The user's registry file, in the user's xcsh data directory.
///
/// # Errors
///
/// The OS gives no data directory.
pub fn user_registry(data: Option<&PathBuf>) -> anyhow::Result<PathBuf> {
    data.map(|d| d.join(super::registry::REGISTRY_FILE_NAME))
        .context("no user data directory to keep the pack registry in")
}
