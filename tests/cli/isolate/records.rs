//! What the namespace sandbox keeps read-only although it lies where a
//! pack may write: the working directory's `.git/` and `.xcsh/` even before
//! they exist, and xcsh's own directories when the working directory holds
//! them (running in `$HOME`). The hostile pack plants files there; nothing
//! appears, the other pack's action applies, and no empty directory made
//! for the sandbox is left behind.

use serde_json::json;

use super::hostile::{call, hostile, isolated, run_between, texts};
use crate::support::{Env, arg, preview_line, resolve_line};

#[test]
fn records_that_do_not_exist_yet_cannot_be_created_and_nothing_is_left_behind() {
    let env = Env::new();
    let (git, xcsh) = (env.work().join(".git"), env.work().join(".xcsh"));
    let hooks = git.join("hooks/pre-commit");
    let config = xcsh.join("config.toml");
    let output = run_between(
        &env,
        isolated(&env),
        &[
            call(
                "plant_script",
                json!({"paths": [arg(&git.join("config"))], "script": "[core]\n"}),
            ),
            call(
                "plant_script",
                json!({"paths": [arg(&config)], "script": "[isolation]\n"}),
            ),
            call(
                "plant_script",
                json!({"paths": [arg(&hooks)], "script": "x"}),
            ),
        ],
    );
    let texts = texts(&output);
    assert_eq!(
        texts[1],
        format!(
            "{}: Read-only file system (os error 30)",
            git.join("config").display()
        )
    );
    assert_eq!(
        texts[2],
        format!("{}: Read-only file system (os error 30)", config.display())
    );
    assert!(
        texts[3].starts_with(&format!("{}: ", hooks.display())),
        "{texts:?}"
    );
    assert!(!git.exists(), "the empty .git made for the sandbox is gone");
    assert!(!config.exists());
}

#[test]
fn xcsh_s_own_directories_are_read_only_to_a_pack_working_in_home() {
    let env = Env::new();
    let home = env.home.path();
    let config = env.user_config_dir().join("config.toml");
    let registry = env.user_data_dir().join("packs.json");
    let first_seen = home.join(".cache/xcsh/first-seen/forged");
    std::fs::write(home.join("a.txt"), "a").unwrap();
    let mut command = isolated(&env);
    command.current_dir(home);
    let mut script = vec![preview_line(
        &["a.txt"],
        json!({"kind": "prefix", "prefix": "new-"}),
    )];
    for path in [&config, &registry, &first_seen] {
        script.push(call(
            "plant_script",
            json!({"paths": [arg(path)], "script": "forged"}),
        ));
    }
    script.push(resolve_line("apply", "still wanted"));
    let output = env.run_command(command, &script.join("\n"));
    assert_eq!(output.code, Some(0), "{output:?}");
    let texts = texts(&output);
    for (text, path) in texts[1..4].iter().zip([&config, &registry, &first_seen]) {
        assert!(
            text.starts_with(&format!("{}: ", path.display())),
            "{text} ({path:?})"
        );
        assert!(!path.exists(), "{path:?}");
    }
    assert!(
        home.join("new-a.txt").is_file(),
        "the other pack's action applied"
    );
    // The config directory, which xcsh only reads, was made for the
    // sandbox, and is gone again (the data and cache directories xcsh
    // writes itself).
    let left = walk(&home.join(".config"));
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_pack_library_under_the_working_directory_cannot_be_changed_or_moved_aside() {
    let env = Env::new();
    let packs = env.work().join("packs");
    let library = crate::support::copy_pack("batch-rename", &packs);
    let original = std::fs::read(&library).unwrap();
    let command = env.command(&[
        "run",
        "--isolate",
        "--plugin-dir",
        arg(&packs),
        "--plugin",
        arg(&hostile()),
        "-",
    ]);
    // Renaming the directory that holds it would let the pack put its own
    // library at the old path for the next session.
    let moved = env.work().join("moved");
    let output = run_between(
        &env,
        command,
        &[
            call(
                "plant_script",
                json!({"paths": [arg(&library)], "script": "forged"}),
            ),
            call("move_path", json!({"from": arg(&packs), "to": arg(&moved)})),
            call(
                "move_path",
                json!({"from": arg(&library), "to": arg(&moved)}),
            ),
        ],
    );
    let texts = texts(&output);
    assert_eq!(
        texts[1],
        format!("{}: Read-only file system (os error 30)", library.display())
    );
    assert_eq!(
        texts[2],
        format!("{}: Device or resource busy (os error 16)", packs.display())
    );
    assert!(
        texts[3].starts_with(&format!("{}: ", library.display())),
        "{texts:?}"
    );
    assert!(!moved.exists());
    assert_eq!(std::fs::read(&library).unwrap(), original);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = vec![dir.to_path_buf()];
    for entry in entries {
        found.extend(walk(&entry.unwrap().path()));
    }
    found
}

#[test]
fn a_working_directory_that_is_a_plugin_directory_is_read_only_whole() {
    let env = Env::new();
    crate::support::copy_pack("batch-rename", env.work());
    crate::support::write(
        &env.user_config_dir().join("config.toml"),
        &format!("[isolation.packs.{:?}]\n", arg(&hostile())),
    );
    let command = env.command(&[
        "run",
        "--plugin-dir",
        arg(env.work()),
        "--plugin",
        arg(&hostile()),
        "-",
    ]);
    let planted = env.work().join("planted.txt");
    let output = run_between(
        &env,
        command,
        &[call(
            "plant_script",
            json!({"paths": [arg(&planted)], "script": "x"}),
        )],
    );
    assert_eq!(
        texts(&output)[1],
        format!("{}: Read-only file system (os error 30)", planted.display())
    );
    assert!(!planted.exists());
}
