//! A pack must offer the same tools every time it is opened: `add` and
//! `verify` load it twice, and the first use of an installed pack compares
//! what it offers with what `add` recorded (the model was shown that).

use std::path::Path;

use crate::support::{Env, Output};

use super::{list_json, ok, pack, results, states};

/// The fixture's tool name varies with the process id under this variable.
const NAME_FROM_PID: &str = "XCSH_FIXTURE_NAME_FROM_PID";
/// The fixture's tool description is this variable's value.
const DESCRIPTION: &str = "XCSH_FIXTURE_DESCRIPTION";

/// `xcsh ARGS` with the environment variable `var` set.
fn run_with(env: &Env, args: &[&str], stdin: &str, var: &str) -> Output {
    let mut command = env.command(args);
    command.env(var, "Other words.");
    env.run_command(command, stdin)
}

/// The two process ids in `… (tool names [varying_tool_A] then
/// [varying_tool_B]); …` between `prefix` and `suffix`, which must be
/// there.
fn two_pids(text: &str, prefix: &str, suffix: &str) -> (u32, u32) {
    let middle = text
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix(suffix))
        .unwrap_or_else(|| panic!("{text:?} is not {prefix:?}…{suffix:?}"));
    let (first, second) = middle
        .strip_prefix("varying_tool_")
        .and_then(|rest| rest.split_once("] then [varying_tool_"))
        .unwrap_or_else(|| panic!("{middle:?}"));
    (first.parse().unwrap(), second.parse().unwrap())
}

fn verify_line(path: &Path, state_and_why: &str) -> String {
    format!(
        "{state_and_why} (to accept it: xcsh pack add {})\n",
        path.display()
    )
}

#[test]
fn a_pack_whose_tools_differ_between_two_loads_is_refused_by_add() {
    let env = Env::new();
    let path = pack(&env, "fixture-varying-tools");
    let output = run_with(
        &env,
        &["pack", "add", path.to_str().unwrap()],
        "",
        NAME_FROM_PID,
    );
    assert_eq!(output.code, Some(1), "{output:?}");
    let (first, second) = two_pids(
        &output.stderr,
        &format!(
            "error: cannot add {}: its tools differ between two loads (tool names [",
            path.display()
        ),
        "]); a pack must offer the same tools every time it is opened\n",
    );
    assert_ne!(first, second);
    assert_eq!(output.stdout, "");
    assert!(!env.user_data_dir().join("packs.json").exists());
}

#[test]
fn verify_loads_a_pack_twice_and_names_what_changed_since_add() {
    let env = Env::new();
    let path = pack(&env, "fixture-varying-tools");
    ok(env.run(&["pack", "add", path.to_str().unwrap()], ""));
    ok(env.run(&["pack", "verify"], ""));

    let output = run_with(&env, &["pack", "verify"], "", NAME_FROM_PID);
    assert_eq!(output.code, Some(1), "{output:?}");
    let (first, second) = two_pids(
        &output.stdout,
        "failed   fixture-varying-tools 0.1.0: its tools differ between two loads (tool names [",
        "]); a pack must offer the same tools every time it is opened\n",
    );
    assert_ne!(first, second);

    let output = run_with(&env, &["pack", "verify"], "", DESCRIPTION);
    assert_eq!(output.code, Some(1), "{output:?}");
    assert_eq!(
        output.stdout,
        verify_line(
            &path,
            "changed  fixture-varying-tools 0.1.0: it now offers other tools than when it was added: the description of varying_tool"
        )
    );
    assert_eq!(
        output.stderr,
        "error: 1 of 1 installed pack failed verification\n"
    );
}

#[test]
fn a_pack_offering_other_descriptors_at_first_use_is_refused_until_added_again() {
    for isolated in [false, true] {
        let env = Env::new();
        let path = pack(&env, "fixture-varying-tools");
        let mut add = vec!["pack", "add", path.to_str().unwrap()];
        if isolated {
            add.push("--isolate");
        }
        ok(env.run(&add, ""));
        let call = "{\"tool\": \"varying_tool\"}\n";
        assert_eq!(
            results(&ok(env.run(&["run"], call))),
            [(false, "from varying-tools".to_owned())]
        );

        // Same file, another environment: the tool the model was shown is
        // not the one the pack now offers.
        if isolated {
            env.grant_env(&path, &[DESCRIPTION]);
        }
        let output = ok(run_with(
            &env,
            &["run"],
            &format!("{call}{call}"),
            DESCRIPTION,
        ));
        let refusal = format!(
            "Tool varying_tool is unavailable: installed pack fixture-varying-tools failed to open: it now offers other tools than when it was added: the description of varying_tool; to use it, run: xcsh pack add {}",
            path.display()
        );
        assert_eq!(
            results(&output),
            [(true, refusal.clone()), (true, refusal)],
            "isolated: {isolated}"
        );
        assert_eq!(
            states(&list_json(&env)),
            [("fixture-varying-tools".to_owned(), "failed".to_owned())]
        );

        // Adding it again in that environment accepts what it now offers.
        let output = ok(run_with(&env, &add, "", DESCRIPTION));
        assert!(
            output
                .stdout
                .starts_with("Updated pack fixture-varying-tools 0.1.0"),
            "{output:?}"
        );
        let output = ok(run_with(&env, &["run"], call, DESCRIPTION));
        assert_eq!(results(&output), [(false, "from varying-tools".to_owned())]);
    }
}
