//! Writers that cannot lose each other's work: two `xcsh pack add` at
//! once both keep their pack, and two `xcsh trust` at once both keep
//! their project, round after round.

use std::collections::BTreeSet;

use crate::support::{Env, Output, arg, canonical, copy_pack};

fn ok(output: Output) -> Output {
    assert_eq!(output.code, Some(0), "{output:?}");
    output
}

/// Runs `commands` (each `xcsh ARGS` in `env`) at the same time.
fn at_once(env: &Env, commands: &[Vec<String>]) -> Vec<Output> {
    let children: Vec<_> = commands
        .iter()
        .map(|args| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            env.command(&args)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            Output {
                code: output.status.code(),
                stdout: String::from_utf8(output.stdout).unwrap(),
                stderr: String::from_utf8(output.stderr).unwrap(),
            }
        })
        .collect()
}

#[test]
fn two_pack_adds_at_once_keep_both_packs_in_every_round() {
    for round in 0..40 {
        let env = Env::new();
        let dir = env.work().join("packs");
        let a = canonical(&copy_pack("batch-rename", &dir));
        let b = canonical(&copy_pack("fixture-load-marker", &dir));
        let adds: Vec<Vec<String>> = [&a, &b]
            .iter()
            .map(|path| vec!["pack".into(), "add".into(), arg(path).into()])
            .collect();
        for output in at_once(&env, &adds) {
            ok(output);
        }
        let list = ok(env.run(&["pack", "list", "--json"], ""));
        let json: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
        let names: BTreeSet<&str> = json["packs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pack| pack["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            BTreeSet::from(["batch-rename", "fixture-load-marker"]),
            "round {round}"
        );
    }
}

#[test]
fn two_trusts_at_once_keep_both_projects() {
    for round in 0..10 {
        let env = Env::new();
        let one = env.work().join("one");
        let two = env.work().join("two");
        std::fs::create_dir_all(&one).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        let trusts: Vec<Vec<String>> = [&one, &two]
            .iter()
            .map(|dir| vec!["trust".into(), arg(dir).into()])
            .collect();
        for output in at_once(&env, &trusts) {
            ok(output);
        }
        let list = ok(env.run(&["trust", "--list"], "")).stdout;
        for dir in [&one, &two] {
            assert!(
                list.contains(&canonical(dir).display().to_string()),
                "round {round}: {list}"
            );
        }
    }
}
