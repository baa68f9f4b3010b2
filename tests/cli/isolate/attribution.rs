//! Actions belong to the call that pushed them, also when the pack's
//! process forges its pushes on the protocol pipe: a push naming a running
//! `apply` or `reject`, or a call that returned, is refused and never
//! reaches the stack; one naming the running call is that call's, judged
//! by policy and journaled under the call's tool and the pack the agent
//! opened, never the name the pack gave it.

use serde_json::{Value, json};

use super::hostile::{call, hostile, pending, texts};
use crate::support::{Env, arg, resolve_line};

/// How far the forged request ids go: past every request of the session.
const UP_TO: u64 = 40;

#[test]
fn forged_pushes_naming_other_requests_are_refused_and_the_running_calls_is_its_own() {
    let env = Env::new();
    env.trust();
    std::fs::create_dir_all(env.user_config_dir()).unwrap();
    // The pack names its pushes after a tool the policy lets the model
    // apply; the tool that really pushes is denied.
    std::fs::write(
        env.user_config_dir().join("config.toml"),
        "[approval]\ntools = { forge_pushes = \"deny\", model_approved = \"model\" }\n",
    )
    .unwrap();
    let forge = |tool: &str, tag: &str| call(tool, json!({"tag": tag, "up_to": UP_TO}));
    let script = [
        forge("forge_pushes", "f"),
        resolve_line("apply", "the pack says it is approved"),
        resolve_line("discard", "forged"),
        forge("push_forging", "g"),
        resolve_line("discard", "its reject forges"),
        forge("push_forging", "h"),
        resolve_line("apply", "its apply forges"),
    ]
    .join("\n");
    let output = env.run(
        &["run", "--isolate", "--plugin", arg(&hostile()), "-"],
        &script,
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    // Of the forged pushes only the one naming the running call is
    // accepted; none pushed from an apply or a reject is.
    assert_eq!(pending(&output), [1, 1, 0, 1, 0, 1, 0], "{output:?}");
    let texts = texts(&output);
    assert_eq!(texts[0], format!("forged {}", UP_TO + 1));
    assert_eq!(
        texts[1],
        "Apply refused: the policy for forge_pushes is deny; only discard is allowed. The action is still pending."
    );
    let own = texts[2]
        .strip_prefix("Discarded: Forged: f ")
        .and_then(|rest| rest.strip_suffix(". Reason: forged"))
        .unwrap_or_else(|| panic!("{}", texts[2]));
    let own: u64 = own.parse().unwrap();
    assert!(own <= UP_TO);
    assert_eq!(texts[4], "Discarded: Forging: g. Reason: its reject forges");
    assert_eq!(texts[6], "applied forging");

    // Every other forged push was refused, each said on stderr.
    let outside = format!(
        "warning: {} pack=fixture-hostile",
        xcsh_core::PUSH_OUTSIDE_CALL
    );
    let from_resolve = format!(
        "warning: {} pack=fixture-hostile",
        xcsh_core::PUSH_FROM_RESOLVE
    );
    let mut refused = (0, 0);
    for line in output.stderr.lines() {
        if line == outside {
            refused.0 += 1;
        } else if line == from_resolve {
            refused.1 += 1;
        } else {
            panic!("unexpected line: {line}\n{}", output.stderr);
        }
    }
    // One reject and one apply each named their own request once.
    assert_eq!(refused.1, 2, "{}", output.stderr);
    assert_eq!(refused.0, 3 * (UP_TO + 1) - 1 - 2, "{}", output.stderr);

    // The journal has the three real pushes, under the tools that ran and
    // the pack the agent opened.
    let journal = std::fs::read_to_string(env.work().join(".xcsh/journal.jsonl")).unwrap();
    let entries: Vec<Value> = journal
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let pushes: Vec<(&str, &str, &str, &str)> = entries
        .iter()
        .filter(|entry| entry["event"] == "push")
        .map(|entry| {
            (
                entry["tool"].as_str().unwrap(),
                entry["pack"].as_str().unwrap(),
                entry["label"].as_str().unwrap(),
                entry["policy"].as_str().unwrap(),
            )
        })
        .collect();
    let forged_label = format!("Forged: f {own}");
    assert_eq!(
        pushes,
        [
            (
                "forge_pushes",
                "fixture-hostile",
                forged_label.as_str(),
                "deny"
            ),
            ("push_forging", "fixture-hostile", "Forging: g", "model"),
            ("push_forging", "fixture-hostile", "Forging: h", "model"),
        ]
    );
    let refused_apply = entries
        .iter()
        .find(|entry| entry["event"] == "resolve" && entry["outcome"] == "refused")
        .unwrap();
    assert_eq!(refused_apply["tool"], "forge_pushes");
    assert_eq!(refused_apply["decidedBy"], "policy");
}
