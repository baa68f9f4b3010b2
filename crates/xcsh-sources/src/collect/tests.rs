use std::fs;

use tempfile::TempDir;
use xcsh_loader::discover::pack_file_name;

use super::*;
use crate::discovery::discover;
use crate::trust_store::ProjectRecord;
use crate::warning::Problem;

struct Fixture {
    cwd: TempDir,
    home: TempDir,
}

impl Fixture {
    fn new() -> Self {
        Self {
            cwd: TempDir::new().unwrap(),
            home: TempDir::new().unwrap(),
        }
    }

    fn user(&self) -> UserDirs {
        UserDirs {
            config: Some(self.home.path().join("config/xcsh")),
            data: Some(self.home.path().join("data/xcsh")),
        }
    }

    /// Creates an (empty) file under the working directory.
    fn file(&self, relative: &str) -> PathBuf {
        let path = self.cwd.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, b"").unwrap();
        path
    }

    /// Records the working directory as trusted, with its config as it is.
    fn trust(&self) {
        let project = Project::at(self.cwd.path());
        let record = ProjectRecord {
            config: project.read_config().unwrap().map(|(hash, _)| hash),
            registry: None,
            packs: Default::default(),
        };
        let mut store = TrustStore::default();
        store.projects.insert(project.dir, record);
        store
            .save(&self.user().data.unwrap().join(TRUST_FILE_NAME))
            .unwrap();
    }

    fn collect(&self, args: &PackArgs, env: Option<&str>) -> Vec<Source> {
        collect(args, self.cwd.path(), env.map(OsStr::new), &self.user())
            .unwrap()
            .sources
    }
}

fn origins(sources: &[Source]) -> Vec<String> {
    sources.iter().map(|s| s.origin.to_string()).collect()
}

#[test]
fn sources_come_in_the_documented_order() {
    let fx = Fixture::new();
    let project_config = fx.cwd.path().join(".xcsh/config.toml");
    fs::create_dir_all(project_config.parent().unwrap()).unwrap();
    fs::write(
        &project_config,
        "plugins = [\"p.so\"]\nplugin_dirs = [\"pd\"]\n",
    )
    .unwrap();
    let user_config = fx.home.path().join("config/xcsh/config.toml");
    fs::create_dir_all(user_config.parent().unwrap()).unwrap();
    fs::write(&user_config, "plugin_dirs = [\"ud\"]\n").unwrap();
    fx.trust();
    let args = PackArgs {
        plugins: vec!["f.so".into()],
        plugin_dirs: vec!["fd".into()],
        ..PackArgs::default()
    };
    let env = std::env::join_paths(["e1", "", "e2"]).unwrap();
    let sources = fx.collect(&args, env.to_str());
    let paths: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
    let cwd = fx.cwd.path();
    assert_eq!(
        paths,
        [
            cwd.join("f.so"),
            cwd.join("fd"),
            cwd.join("e1"),
            cwd.join("e2"),
            cwd.join(".xcsh/p.so"),
            cwd.join(".xcsh/pd"),
            fx.home.path().join("config/xcsh/ud"),
            cwd.join(".xcsh/plugins"),
            fx.home.path().join("data/xcsh/plugins"),
        ]
    );
    let project = format!("config {}", project_config.display());
    let user = format!("config {}", user_config.display());
    assert_eq!(
        origins(&sources),
        [
            "--plugin",
            "--plugin-dir",
            "XCSH_PLUGIN_PATH",
            "XCSH_PLUGIN_PATH",
            &project,
            &project,
            &user,
            "default directory",
            "default directory",
        ]
    );
    let expects: Vec<Expect> = sources.iter().map(|s| s.expect).collect();
    use Expect::{Dir, Either, File};
    assert_eq!(
        expects,
        [File, Dir, Either, Either, File, Dir, Dir, Dir, Dir]
    );
}

#[test]
fn an_invalid_config_is_an_error_naming_the_file() {
    let fx = Fixture::new();
    fx.file(".xcsh/config.toml");
    fs::write(fx.cwd.path().join(".xcsh/config.toml"), "plugins = 3\n").unwrap();
    fx.trust();
    let error = collect(&PackArgs::default(), fx.cwd.path(), None, &fx.user()).unwrap_err();
    assert_eq!(
        format!("{error:#}"),
        format!(
            "invalid config file {}: line 1: invalid type: integer `3`, expected a sequence",
            fx.cwd.path().join(".xcsh/config.toml").display()
        )
    );
}

#[test]
fn directories_give_their_libraries_and_files_give_themselves() {
    let fx = Fixture::new();
    let a = fx.file(&format!("packs/{}", pack_file_name("a")));
    let b = fx.file(&format!("packs/{}", pack_file_name("b")));
    fx.file("packs/readme.txt");
    let single = fx.file("elsewhere/custom-name.bin");
    let args = PackArgs {
        plugins: vec![single.clone()],
        plugin_dirs: vec!["packs".into()],
        ..PackArgs::default()
    };
    let discovery = discover(&fx.collect(&args, None));
    assert_eq!(discovery.packs, [single, a, b]);
    assert!(discovery.warnings.is_empty(), "{:?}", discovery.warnings);
}

#[test]
fn the_same_file_from_two_sources_is_listed_once() {
    let fx = Fixture::new();
    let pack = fx.file(&format!("packs/{}", pack_file_name("a")));
    let args = PackArgs {
        plugins: vec![pack.clone(), "packs/../packs/".to_owned().into()],
        plugin_dirs: vec!["packs".into()],
        ..PackArgs::default()
    };
    let env = fx.cwd.path().join("packs");
    let discovery = discover(&fx.collect(&args, env.to_str()));
    assert_eq!(discovery.packs, [pack]);
    // The second --plugin names a directory: that is a warning, not a load.
    assert_eq!(discovery.warnings.len(), 1);
}

#[test]
fn missing_and_mistyped_paths_are_warnings() {
    let fx = Fixture::new();
    let file = fx.file("lib.so");
    fs::create_dir_all(fx.cwd.path().join("dir")).unwrap();
    let args = PackArgs {
        plugins: vec!["missing.so".into(), "dir".into()],
        plugin_dirs: vec!["nodir".into(), "lib.so".into()],
        ..PackArgs::default()
    };
    let env = std::env::join_paths([fx.cwd.path().join("gone"), file.clone()]).unwrap();
    let discovery = discover(&fx.collect(&args, env.to_str()));
    assert_eq!(discovery.packs, [file]);
    let cwd = fx.cwd.path().display();
    let warnings: Vec<String> = discovery.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        [
            format!("Plugin path not found: {cwd}/missing.so (from --plugin)"),
            format!(
                "Plugin path is a directory: {cwd}/dir (from --plugin); use --plugin-dir for a directory"
            ),
            format!("Plugin path not found: {cwd}/nodir (from --plugin-dir)"),
            format!(
                "Plugin directory is a file: {cwd}/lib.so (from --plugin-dir); use --plugin for one pack"
            ),
            format!("Plugin path not found: {cwd}/gone (from XCSH_PLUGIN_PATH)"),
        ]
    );
}

#[test]
fn missing_default_directories_say_nothing_but_present_ones_load() {
    let fx = Fixture::new();
    let discovery = discover(&fx.collect(&PackArgs::default(), None));
    assert!(discovery.packs.is_empty());
    assert!(discovery.warnings.is_empty());

    let project = fx.file(&format!(".xcsh/plugins/{}", pack_file_name("p")));
    let user = fx
        .home
        .path()
        .join("data/xcsh/plugins")
        .join(pack_file_name("u"));
    fs::create_dir_all(user.parent().unwrap()).unwrap();
    fs::write(&user, b"").unwrap();
    fx.trust();
    let discovery = discover(&fx.collect(&PackArgs::default(), None));
    assert_eq!(discovery.packs, [project.clone(), user]);
    assert_eq!(discovery.from_project, [project]);
}

#[test]
fn an_untrusted_project_adds_no_source_and_no_setting() {
    let fx = Fixture::new();
    fx.file(&format!(".xcsh/plugins/{}", pack_file_name("p")));
    let config = fx.file(".xcsh/config.toml");
    fs::write(
        &config,
        "plugins = [\"p.so\"]\ntool_timeout_secs = 1\n[allow_list]\n\"p.so\" = \"00\"\n",
    )
    .unwrap();
    let collected = collect(&PackArgs::default(), fx.cwd.path(), None, &fx.user()).unwrap();
    assert_eq!(origins(&collected.sources), ["default directory"]);
    assert_eq!(collected.settings, Settings::default());
    assert_eq!(collected.skipped.len(), 1);
    assert!(matches!(
        collected.skipped[0].problem,
        Problem::NotTrusted(_)
    ));
}

#[test]
fn a_trusted_projects_allow_list_and_timeout_stay_project_settings() {
    let fx = Fixture::new();
    let config = fx.file(".xcsh/config.toml");
    fs::write(
        &config,
        "tool_timeout_secs = 1\n[allow_list]\n\"p.so\" = \"00\"\n",
    )
    .unwrap();
    let user_config = fx.home.path().join("config/xcsh/config.toml");
    fs::create_dir_all(user_config.parent().unwrap()).unwrap();
    fs::write(&user_config, "[allow_list]\n\"/u.so\" = \"11\"\n").unwrap();
    fx.trust();
    let settings = collect(&PackArgs::default(), fx.cwd.path(), None, &fx.user())
        .unwrap()
        .settings;
    assert_eq!(
        settings.allow_list,
        Some(vec![(PathBuf::from("/u.so"), "11".to_owned())])
    );
    assert_eq!(settings.tool_timeout, None);
    assert_eq!(
        settings.project.allow_list,
        Some((
            config,
            vec![(fx.cwd.path().join(".xcsh/p.so"), "00".to_owned())]
        ))
    );
    assert_eq!(
        settings.project.tool_timeout,
        Some(std::time::Duration::from_secs(1))
    );
}
