use std::fs;

use tempfile::TempDir;

use super::*;

fn store_with(dir: &Path, record: ProjectRecord) -> TrustStore {
    let mut store = TrustStore::default();
    store.projects.insert(dir.to_path_buf(), record);
    store
}

#[test]
fn a_directory_without_project_files_is_absent() {
    let cwd = TempDir::new().unwrap();
    let project = Project::at(cwd.path());
    assert!(matches!(
        project.judge(&TrustStore::default()).unwrap(),
        Verdict::Absent
    ));
}

/// The skip line of `project` judged with no trust at all.
fn untrusted_skip(project: &Project) -> String {
    let Verdict::Skipped(warning) = project.judge(&TrustStore::default()).unwrap() else {
        panic!("expected a skip");
    };
    warning.to_string()
}

#[test]
fn an_untrusted_project_is_skipped_with_the_command_that_trusts_it() {
    let cwd = TempDir::new().unwrap();
    let project = Project::at(cwd.path());
    fs::create_dir_all(&project.plugins).unwrap();
    // Invalid, and never parsed: an untrusted config is only hashed.
    fs::write(&project.config, "plugins = 3").unwrap();
    let dir = project.dir.display();
    assert_eq!(
        untrusted_skip(&project),
        format!(
            "Skipped {dir}/.xcsh/config.toml and {dir}/.xcsh/plugins: {dir} is not a trusted project (to trust it: xcsh trust {dir})"
        )
    );
}

#[test]
fn a_changed_config_asks_again_and_an_unchanged_one_loads() {
    let cwd = TempDir::new().unwrap();
    let project = Project::at(cwd.path());
    fs::create_dir_all(project.config.parent().unwrap()).unwrap();
    fs::write(&project.config, "plugins = [\"a.so\"]\n").unwrap();
    let record = project.snapshot().unwrap();
    assert_eq!(
        record.config.as_deref(),
        Some(xcsh_loader::sha256_hex(b"plugins = [\"a.so\"]\n").as_str())
    );
    let store = store_with(&project.dir, record);
    let Verdict::Trusted { config, .. } = project.judge(&store).unwrap() else {
        panic!("expected trust");
    };
    assert_eq!(config.unwrap().plugins, [cwd.path().join(".xcsh/a.so")]);

    fs::write(&project.config, "plugins = [\"b.so\"]\n").unwrap();
    let Verdict::Skipped(warning) = project.judge(&store).unwrap() else {
        panic!("expected a skip");
    };
    let dir = project.dir.display();
    assert_eq!(
        warning.to_string(),
        format!(
            "Skipped {dir}/.xcsh/config.toml: {dir}/.xcsh/config.toml changed since {dir} was trusted (to trust it again: xcsh trust {dir})"
        )
    );
    // Removing the config is a change too.
    fs::remove_file(&project.config).unwrap();
    fs::create_dir_all(&project.plugins).unwrap();
    assert!(matches!(
        project.judge(&store).unwrap(),
        Verdict::Skipped(_)
    ));
}

#[test]
fn a_trusted_projects_registry_is_used_only_as_it_was_trusted() {
    let cwd = TempDir::new().unwrap();
    let project = Project::at(cwd.path());
    fs::create_dir_all(project.registry.parent().unwrap()).unwrap();
    let text = "{\"version\": 1, \"packs\": {}}\n";
    fs::write(&project.registry, text).unwrap();
    let record = project.snapshot().unwrap();
    assert_eq!(
        record.registry.as_deref(),
        Some(xcsh_loader::sha256_hex(text.as_bytes()).as_str())
    );
    assert!(matches!(
        project.judge_registry(&record).unwrap(),
        RegistryVerdict::Trusted(registry) if registry.packs.is_empty()
    ));
    let store = store_with(&project.dir, record.clone());
    assert!(matches!(
        project.judge(&store).unwrap(),
        Verdict::Trusted { .. }
    ));

    // Changed, removed, or added where there was none: skipped alone.
    fs::write(&project.registry, "{\"version\": 1}\n").unwrap();
    assert!(matches!(
        project.judge_registry(&record).unwrap(),
        RegistryVerdict::Changed
    ));
    fs::remove_file(&project.registry).unwrap();
    assert!(matches!(
        project.judge_registry(&record).unwrap(),
        RegistryVerdict::Changed
    ));
    assert!(matches!(
        project.judge_registry(&ProjectRecord::default()).unwrap(),
        RegistryVerdict::Absent
    ));
    let dir = project.dir.display();
    assert_eq!(
        project.registry_changed().to_string(),
        format!(
            "Skipped {dir}/.xcsh/packs.json: {dir}/.xcsh/packs.json changed since {dir} was trusted (to trust it again: xcsh trust {dir})"
        )
    );
}

#[test]
fn an_invalid_registry_is_not_trusted() {
    let cwd = TempDir::new().unwrap();
    let project = Project::at(cwd.path());
    fs::create_dir_all(project.registry.parent().unwrap()).unwrap();
    fs::write(&project.registry, "{}").unwrap();
    assert_eq!(
        project.snapshot().unwrap_err().to_string(),
        format!(
            "invalid pack registry {}: missing field `version` at line 1 column 2",
            project.registry.display()
        )
    );
}

#[test]
fn an_untrusted_projects_skip_line_names_its_registry_too() {
    let cwd = TempDir::new().unwrap();
    let project = Project::at(cwd.path());
    fs::create_dir_all(&project.plugins).unwrap();
    fs::write(&project.config, "").unwrap();
    fs::write(&project.registry, "").unwrap();
    let dir = project.dir.display();
    assert_eq!(
        untrusted_skip(&project),
        format!(
            "Skipped {dir}/.xcsh/config.toml, {dir}/.xcsh/plugins and {dir}/.xcsh/packs.json: {dir} is not a trusted project (to trust it: xcsh trust {dir})"
        )
    );
}
