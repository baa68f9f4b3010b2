//! `xcsh tools`: the tool listing, the load report, `--json`, `--strict`.

use serde_json::{Value, json};

use crate::support::{Env, arg, batch_rename, canonical, pack_path};

#[test]
fn lists_builtins_and_pack_tools_then_the_load_report() {
    let env = Env::new();
    let pack = batch_rename();
    let output = env.run(&["tools", "--plugin", arg(&pack)], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let path = canonical(&pack).display().to_string();
    assert_eq!(
        output.stdout,
        format!(
            "Tools (3):
  resolve               Resolve       -      built-in, hidden
  ast_edit              AST Edit      model  built-in
  batch_rename_preview  Batch Rename  model  batch-rename 0.1.0 ({path})

Load report: 1 pack loaded, 0 failed, 0 conflicts, 0 warnings
  Loaded tool pack batch-rename 0.1.0{built} from {path}: batch_rename_preview
",
            built = crate::support::built(&pack)
        )
    );
    assert_eq!(output.stderr, "");
}

#[test]
fn json_gives_sources_and_parameter_schemas() {
    let env = Env::new();
    let pack = batch_rename();
    let output = env.run(&["tools", "--json", "--plugin", arg(&pack)], "");
    assert_eq!(output.code, Some(0), "{output:?}");
    let listing: Value = serde_json::from_str(&output.stdout).unwrap();
    let tools = listing["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["resolve", "ast_edit", "batch_rename_preview"]);

    let resolve = &tools[0];
    assert_eq!(resolve["hidden"], true);
    assert_eq!(resolve["source"], json!({"kind": "built-in"}));
    assert_eq!(
        resolve["parameters"]["required"],
        json!(["action", "reason"])
    );

    let rename = &tools[2];
    assert_eq!(rename["label"], "Batch Rename");
    assert_eq!(
        rename["source"],
        json!({
            "kind": "pack",
            "pack": "batch-rename",
            "version": "0.1.0",
            "path": canonical(&pack),
            "built": crate::support::built(&pack)
                .trim_start_matches(" (built ")
                .trim_end_matches(')'),
        })
    );
    assert_eq!(rename["parameters"]["type"], "object");
    assert_eq!(rename["parameters"]["required"], json!(["files", "rule"]));
    assert_eq!(
        listing["report"],
        json!({
            "loaded": [{
                "path": canonical(&pack),
                "name": "batch-rename",
                "version": "0.1.0",
                "tools": ["batch_rename_preview"],
            }],
            "failures": [],
            "conflicts": [],
            "warnings": [],
        })
    );
}

#[test]
fn a_failing_pack_is_reported_while_the_rest_load() {
    let env = Env::new();
    let (bad, good) = (pack_path("fixture-panic-factory"), batch_rename());
    let missing = env.work().join("missing.so");
    let args = [
        "tools",
        "--plugin",
        arg(&bad),
        "--plugin",
        arg(&good),
        "--plugin",
        arg(&missing),
    ];
    let output = env.run(&args, "");
    assert_eq!(
        output.code,
        Some(0),
        "without --strict problems do not fail"
    );
    let path = canonical(&good).display().to_string();
    assert!(
        output.stdout.ends_with(&format!(
            "
Load report: 1 pack loaded, 1 failed, 0 conflicts, 1 warning
  Loaded tool pack batch-rename 0.1.0{} from {path}: batch_rename_preview
  Failed to load tool pack {}: factory panicked: factory exploded on purpose (at {})
  Plugin path not found: {} (from --plugin)
",
            crate::support::built(&good),
            bad.display(),
            xcsh_test_support::panic_site(
                "plugins/fixtures/panic-factory/src/lib.rs",
                "panic!(\"factory exploded on purpose\")"
            ),
            missing.display()
        )),
        "{}",
        output.stdout
    );
    assert!(
        output
            .stdout
            .contains("  batch_rename_preview  Batch Rename")
    );
    assert_eq!(
        output.stderr, "",
        "the report is on stdout, not repeated on stderr"
    );

    let mut strict = args.to_vec();
    strict.push("--strict");
    let output = env.run(&strict, "");
    assert_eq!(output.code, Some(1));
    assert!(output.stdout.contains("Failed to load tool pack"));
    assert_eq!(
        output.stderr,
        "error: --strict: 2 problems loading tool packs\n"
    );

    let clean = env.run(&["tools", "--strict", "--plugin", arg(&good)], "");
    assert_eq!(clean.code, Some(0), "{clean:?}");
}

#[test]
fn conflicts_name_the_losing_pack() {
    let env = Env::new();
    let (a, b) = (
        pack_path("fixture-conflict-a"),
        pack_path("fixture-conflict-b"),
    );
    let output = env.run(&["tools", "--plugin", arg(&a), "--plugin", arg(&b)], "");
    assert_eq!(output.code, Some(0));
    assert!(
        output.stdout.contains(&format!(
            "  Tool name \"shared_name\" conflicts with existing tool (in {})\n",
            b.display()
        )),
        "{}",
        output.stdout
    );
    assert!(
        output
            .stdout
            .contains("Load report: 2 packs loaded, 0 failed, 1 conflict, 0 warnings\n")
    );
}
