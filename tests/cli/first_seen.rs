//! One bad library never stops the others, in-process too: a library not
//! seen before is opened first in a child process (`xcsh pack-probe`), and
//! one whose load-time code kills that child is reported and skipped.

#![cfg(target_os = "linux")]

use std::fs;
use std::process::Stdio;

use crate::support::{Env, arg, canonical, copy_pack};

/// A plugin directory holding `fixture-load-abort` and the good
/// batch-rename pack; returns (directory, bad library, good library).
fn mixed_plugin_dir(env: &Env) -> (std::path::PathBuf, String, String) {
    let dir = env.work().join("plugins");
    let bad = copy_pack("fixture-load-abort", &dir);
    let good = copy_pack("batch-rename", &dir);
    let bad = canonical(&bad).display().to_string();
    let good = canonical(&good).display().to_string();
    (dir, bad, good)
}

fn killed_line(bad: &str) -> String {
    format!("Failed to load tool pack {bad}: its load-time code killed the process (SIGABRT)")
}

#[test]
fn a_library_whose_load_time_code_aborts_is_reported_and_the_others_listed() {
    let env = Env::new();
    let (dir, bad, good) = mixed_plugin_dir(&env);
    let tools = || env.run(&["tools", "--plugin-dir", arg(&dir)], "");
    let output = tools();
    assert_eq!(output.code, Some(0), "{output:?}");
    assert!(
        output.stdout.contains(&format!(
            "  Loaded tool pack batch-rename 0.1.0{} from {good}: batch_rename_preview\n",
            crate::support::built(good.as_ref())
        )),
        "{}",
        output.stdout
    );
    assert!(
        output
            .stdout
            .contains(&format!("  {}\n", killed_line(&bad))),
        "{}",
        output.stdout
    );
    assert!(
        output
            .stdout
            .contains("  batch_rename_preview  Batch Rename")
    );

    // Remembered in the user's cache: the next start-up says the same
    // without a new check (one outcome per build, one entry per file).
    let cache = env.home.path().join(".cache/xcsh/first-seen");
    let entries = || {
        let mut names: Vec<String> = fs::read_dir(&cache)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let first = entries();
    assert_eq!(first.len(), 4, "{first:?}");
    let refused: Vec<String> = first
        .iter()
        .filter(|name| name.starts_with("sha256-"))
        .map(|name| fs::read_to_string(cache.join(name)).unwrap())
        .filter(|line| line != "loaded\n")
        .collect();
    assert_eq!(
        refused,
        ["refused its load-time code killed the process (SIGABRT)\n"]
    );
    let again = tools();
    assert_eq!(again.stdout, output.stdout);
    assert_eq!(entries(), first);
}

#[test]
fn run_and_mcp_go_on_without_the_aborting_library() {
    let env = Env::new();
    let (dir, bad, _) = mixed_plugin_dir(&env);
    let warning = format!("warning: {}\n", killed_line(&bad));
    let output = env.run(
        &["run", "--plugin-dir", arg(&dir)],
        "{\"tool\": \"batch_rename_preview\", \"arguments\": {\"files\": [], \"rule\": {\"prefix\": \"x\"}}}\n",
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(output.stderr, warning);
    assert!(output.stdout.contains("batch_rename_preview"), "{output:?}");

    let output = env
        .command(&["mcp", "--plugin-dir", arg(&dir)])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.starts_with(&warning), "{stderr}");
}
