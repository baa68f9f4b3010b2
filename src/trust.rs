//! `xcsh trust`: trust a project directory, list the trusted ones, revoke
//! trust. Loads no pack and runs no project code.

use std::io::{self, Write};
use std::path::Path;

use anyhow::Context as _;

use xcsh_sources::UserDirs;
use xcsh_sources::project::Project;
use xcsh_sources::trust_store::{ProjectRecord, TRUST_FILE_NAME, TrustStore};
use xcsh_text::count;
use xcsh_text::escape::path as shown;

use crate::cli::TrustArgs;

/// Runs `xcsh trust` in the working directory `cwd`.
///
/// # Errors
///
/// No user data directory, an unreadable or invalid project config or
/// pack, a directory to revoke that is not trusted, or the record cannot
/// be written.
pub fn run(args: &TrustArgs, cwd: &Path, user: &UserDirs) -> anyhow::Result<()> {
    let store_path = user
        .data
        .as_ref()
        .map(|data| data.join(TRUST_FILE_NAME))
        .context("no user data directory to keep the trusted projects in")?;
    // From reading the record to writing it back, one `xcsh trust` at a time.
    let _one_writer = xcsh_sources::file_lock::lock(&store_path)
        .with_context(|| format!("cannot lock trust file {}", shown(&store_path)))?;
    let mut store = TrustStore::load(&store_path)?;
    let mut out = io::stdout().lock();
    if args.list {
        write!(out, "{}", list(&store))?;
        return Ok(());
    }
    let dir = cwd.join(args.dir.as_deref().unwrap_or(Path::new(".")));
    if args.revoke {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        if store.projects.remove(&dir).is_none() {
            anyhow::bail!("{} is not a trusted project", shown(&dir));
        }
        store.save(&store_path)?;
        writeln!(out, "Revoked trust in {}", shown(&dir))?;
        return Ok(());
    }
    let dir =
        std::fs::canonicalize(&dir).with_context(|| format!("cannot trust {}", shown(&dir)))?;
    let project = Project::at(&dir);
    let record = project.snapshot()?;
    write!(out, "{}", trusted(&project, &record))?;
    store.projects.insert(dir, record);
    store.save(&store_path)?;
    Ok(())
}

/// What `xcsh trust DIR` prints: what was trusted, with its hashes.
fn trusted(project: &Project, record: &ProjectRecord) -> String {
    let mut out = format!("Trusted {}: {}\n", shown(&project.dir), summary(record));
    let config = record.config.as_ref().map(|hash| (&project.config, hash));
    let registry = record
        .registry
        .as_ref()
        .map(|hash| (&project.registry, hash));
    for (path, hash) in config.into_iter().chain(registry).chain(&record.packs) {
        out.push_str(&format!("  {hash}  {}\n", shown(path)));
    }
    out
}

/// `its config, 1 pack`, `no config, 0 packs, its pack registry`.
fn summary(record: &ProjectRecord) -> String {
    format!(
        "{}, {}{}",
        if record.config.is_some() {
            "its config"
        } else {
            "no config"
        },
        count(record.packs.len(), "pack"),
        if record.registry.is_some() {
            ", its pack registry"
        } else {
            ""
        }
    )
}

/// What `xcsh trust --list` prints.
fn list(store: &TrustStore) -> String {
    if store.projects.is_empty() {
        return "No trusted projects.\n".to_owned();
    }
    let mut out = String::new();
    for (dir, record) in &store.projects {
        out.push_str(&format!("{}: {}\n", shown(dir), summary(record)));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_listing_names_each_directory_and_what_was_trusted() {
        let mut store = TrustStore::default();
        assert_eq!(list(&store), "No trusted projects.\n");
        store.projects.insert(
            PathBuf::from("/src/a"),
            ProjectRecord {
                config: Some("00".into()),
                registry: Some("22".into()),
                packs: BTreeMap::from([("/src/a/.xcsh/plugins/libx.so".into(), "11".into())]),
            },
        );
        store
            .projects
            .insert(PathBuf::from("/src/b"), ProjectRecord::default());
        assert_eq!(
            list(&store),
            "/src/a: its config, 1 pack, its pack registry\n/src/b: no config, 0 packs\n"
        );
        let project = Project::at(Path::new("/src/a"));
        assert_eq!(
            trusted(&project, &store.projects[Path::new("/src/a")]),
            "Trusted /src/a: its config, 1 pack, its pack registry\n  00  /src/a/.xcsh/config.toml\n  22  /src/a/.xcsh/packs.json\n  11  /src/a/.xcsh/plugins/libx.so\n"
        );
    }
}
