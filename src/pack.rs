//! `xcsh pack add`, `list`, `remove` and `verify`.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use xcsh_loader::TrustPolicy;

use xcsh_installed::build::build_pack_crate;
use xcsh_installed::check::check_twice;
use xcsh_installed::compare::difference;
use xcsh_sources::registry::{FileStamp, FileState, PackRecord, Registry};
use xcsh_sources::registry_file::{Registries, RegistryFile, Scope};
use xcsh_text::{count, escape, shell_word};

use crate::cli::{PackAddArgs, PackListArgs, PackRemoveArgs, PackVerifyArgs};

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

/// `xcsh pack add PATH`: checks the pack in two child processes and
/// records it in the user's registry, or with `--project` in the
/// project's (whose tool names must not be taken by the user's, which
/// wins).
///
/// # Errors
///
/// The pack cannot be built, read, trusted or opened, a tool name
/// conflicts, the project is not trusted (with `--project`), or the
/// registry cannot be written.
pub fn add(args: &PackAddArgs, cwd: &Path, registries: &Registries) -> anyhow::Result<()> {
    let target = registries.target(args.project)?;
    let scope = target.scope();
    let mut path = cwd.join(&args.path);
    if scope == Scope::Project {
        // Refused before anything is built or checked.
        target
            .load()
            .map_err(|e| anyhow::anyhow!("cannot add {}: {e:#}", path.display()))?;
    }
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
    let (opened, tools) = check_twice(&path, cwd, args.open_limit()).map_err(fail)?;
    if stamp.compare(&path) != FileState::Unchanged
        || xcsh_loader::sha256_hex(&std::fs::read(&path).map_err(|e| fail(e.to_string()))?)
            != stamp.sha256
    {
        return Err(fail(
            "it changed while it was being checked; add it again once it is written".into(),
        ));
    }
    // From reading the registry to writing it back, one writer at a time:
    // two adds at once both keep their pack.
    let _one_writer = target.lock()?;
    let mut registry = target.load()?;
    // The user's registry wins over a project's: a project never overrides
    // the user's choices, so `--replace` never reaches the user's.
    let winner = match scope {
        Scope::Project => Some(registries.user.load()?),
        Scope::User => None,
    };
    let builtins = builtin_names();
    let mut replaced = Vec::new();
    for tool in &tools {
        let conflict = format!("Tool name \"{}\" conflicts with existing tool", tool.name);
        if builtins.contains(&tool.name) {
            return Err(fail(format!(
                "{conflict} (built-in; built-in tools always win)"
            )));
        }
        if let Some(owner) = winner
            .as_ref()
            .and_then(|user| user.owner_of(&tool.name, ""))
        {
            return Err(fail(format!(
                "{conflict} (of your installed pack {}; your registry wins over the project's)",
                owner.name
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
                "Removed pack {} {}{}: its tool {} conflicts with {}",
                escape::line(&old.name),
                escape::line(&old.version),
                in_project(scope, " from the project"),
                escape::line(&tool),
                escape::line(&opened.name)
            )?;
        }
    }
    let (verb, whose) = if registry.packs.contains_key(&opened.name) {
        ("Updated", " in the project")
    } else {
        ("Added", " to the project")
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
        "{verb} pack {} {} ({}{}){}: {}",
        record.name,
        record.version,
        path.display(),
        if record.isolated { ", isolated" } else { "" },
        in_project(scope, whose),
        names.join(", ")
    );
    registry.packs.insert(record.name.clone(), record);
    target.save(&registry)?;
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

/// `suffix` for a project's registry, nothing for the user's.
fn in_project(scope: Scope, suffix: &str) -> &str {
    match scope {
        Scope::User => "",
        Scope::Project => suffix,
    }
}

/// The working directory's project registry as `list` shows it: its file,
/// its packs, and why sessions do not use it (`None`: they do). `None`
/// when the project has no registry.
fn project_listing(registries: &Registries) -> Option<(&RegistryFile, Registry, Option<String>)> {
    let file = registries.project.as_ref()?;
    if !file.path().exists() {
        return None;
    }
    Some(match file.load() {
        Ok(registry) => (file, registry, None),
        // Listed anyway, so the user sees what trusting it would use:
        // reading it runs nothing.
        Err(why) => {
            let registry = Registry::load(file.path()).unwrap_or_default();
            (file, registry, Some(format!("{why:#}")))
        }
    })
}

/// `xcsh pack list`: each installed pack, the user's then the working
/// directory's project's, its tools, mode and state.
///
/// # Errors
///
/// The user's registry cannot be read, or standard output written.
pub fn list(args: &PackListArgs, registries: &Registries) -> anyhow::Result<()> {
    let user = registries.user.load()?;
    let project = project_listing(registries);
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut packs = pack_json(&user, Scope::User);
        if let Some((_, registry, _)) = &project {
            packs.extend(pack_json(registry, Scope::Project));
        }
        let project = project.map(
            |(file, _, why)| json!({"registry": file.path(), "used": why.is_none(), "detail": why}),
        );
        let listing = json!({
            "registry": registries.user.path(),
            "packs": packs,
            "project": project,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&listing)?)?;
        return Ok(());
    }
    let user_path = escape::line(&registries.user.path().display().to_string()).into_owned();
    if user.packs.is_empty() {
        writeln!(out, "No installed packs (to add one: xcsh pack add PATH)")?;
    } else {
        writeln!(out, "Installed packs ({}, {user_path}):", user.packs.len())?;
        write_table(&mut out, &user)?;
    }
    if let Some((file, registry, why)) = project {
        let path = escape::line(&file.path().display().to_string()).into_owned();
        if registry.packs.is_empty() {
            writeln!(out, "No installed packs of the project ({path})")?;
        } else {
            writeln!(
                out,
                "Installed packs of the project ({}, {path}):",
                registry.packs.len()
            )?;
            write_table(&mut out, &registry)?;
        }
        if let Some(why) = why {
            writeln!(out, "  not used: {}", escape::line(&why))?;
        }
    }
    Ok(())
}

/// The `--json` entries of `registry`'s packs.
fn pack_json(registry: &Registry, scope: Scope) -> Vec<Value> {
    registry
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
                "scope": scope.as_str(),
                "tools": pack.tools,
            })
        })
        .collect()
}

/// One row per pack of `registry`, then a line per pack that is not `ok`.
fn write_table(out: &mut impl Write, registry: &Registry) -> std::io::Result<()> {
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

/// `xcsh pack remove NAME`, from the user's registry or with `--project`
/// the project's.
///
/// # Errors
///
/// No installed pack of that name, the project is not trusted (with
/// `--project`), or the registry cannot be written.
pub fn remove(args: &PackRemoveArgs, registries: &Registries) -> anyhow::Result<()> {
    let target = registries.target(args.project)?;
    let scope = target.scope();
    let _one_writer = target.lock()?;
    let mut registry = match scope {
        Scope::User => target.load()?,
        Scope::Project => target
            .load()
            .map_err(|e| anyhow::anyhow!("cannot remove {}: {e:#}", args.name))?,
    };
    let Some(pack) = registry.packs.remove(&args.name) else {
        anyhow::bail!(
            "no installed pack named {}{} (see: xcsh pack list)",
            args.name,
            in_project(scope, " in the project")
        );
    };
    target.save(&registry)?;
    println!(
        "{}",
        escape::line(&format!(
            "Removed pack {} {} ({}){}",
            pack.name,
            pack.version,
            pack.path.display(),
            in_project(scope, " from the project")
        ))
    );
    Ok(())
}

/// `xcsh pack verify [NAME]`: re-hashes each pack of the user's registry
/// and of the project's (while it is used) and checks it again in two
/// child processes; its tools must be the ones recorded.
///
/// # Errors
///
/// Any pack failed (after every line is printed), or no pack of that name.
pub fn verify(args: &PackVerifyArgs, cwd: &Path, registries: &Registries) -> anyhow::Result<()> {
    let _user_writer = registries.user.lock()?;
    let _project_writer = match &registries.project {
        Some(file) if file.path().exists() => Some(file.lock()?),
        _ => None,
    };
    let mut used = vec![(&registries.user, registries.user.load()?)];
    if let Some(file) = &registries.project
        && file.path().exists()
    {
        match file.load() {
            Ok(registry) => used.push((file, registry)),
            Err(why) => tracing::warn!("Skipped {}: {why:#}", file.path().display()),
        }
    }
    if let Some(name) = &args.name
        && !used.iter().any(|(_, r)| r.packs.contains_key(name))
    {
        anyhow::bail!("no installed pack named {name} (see: xcsh pack list)");
    }
    let mut out = std::io::stdout().lock();
    let (mut bad, mut total) = (0, 0);
    for (file, mut registry) in used {
        let names: Vec<String> = registry
            .packs
            .keys()
            .filter(|name| args.name.as_ref().is_none_or(|only| only == *name))
            .cloned()
            .collect();
        let mut cleared = false;
        for name in &names {
            let pack = &registry.packs[name];
            let verdict = verify_one(pack, cwd, args.open_limit());
            let label = format!(
                "{} {}{}",
                pack.name,
                pack.version,
                in_project(file.scope(), " (project)")
            );
            let line = match &verdict {
                Ok(()) => format!("ok       {label}"),
                Err((state, why)) => format!("{state:8} {label}: {why}"),
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
        total += names.len();
        if cleared {
            file.save(&registry)?;
        }
    }
    if bad > 0 {
        anyhow::bail!(
            "{} of {} failed verification",
            bad,
            count(total, "installed pack")
        );
    }
    Ok(())
}

fn verify_one(
    pack: &PackRecord,
    cwd: &Path,
    open_limit: Option<Duration>,
) -> Result<(), (&'static str, String)> {
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
    let (opened, tools) = check_twice(&pack.path, cwd, open_limit).map_err(|e| ("failed", e))?;
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
