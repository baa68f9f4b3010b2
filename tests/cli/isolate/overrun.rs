//! An isolated call that pushes and then overruns its time limit: the
//! agent kills its process and takes back what the call pushed, as it does
//! in-process; the other pack's action stays and applies.

use serde_json::json;

use super::hostile::{call, hostile, pending, texts};
use crate::support::{Env, arg, batch_rename, preview_line, resolve_line};

#[test]
fn what_an_isolated_call_pushed_before_it_timed_out_is_taken_back() {
    let env = Env::new();
    env.trust();
    env.write("a.txt", "a");
    let script = [
        preview_line(&["a.txt"], json!({"kind": "prefix", "prefix": "new-"})),
        call("push_then_block", json!({"tag": "overrun", "ms": 10_000})),
        call("push_marker", json!({"tag": "after"})),
        resolve_line("discard", "not that one"),
        resolve_line("apply", "the rename"),
    ]
    .join("\n");
    let output = env.run(
        &[
            "run",
            "--isolate",
            "--tool-timeout",
            "1",
            "--plugin",
            arg(&batch_rename()),
            "--plugin",
            arg(&hostile()),
            "-",
        ],
        &script,
    );
    assert_eq!(output.code, Some(0), "{output:?}");
    assert_eq!(pending(&output), [1, 1, 2, 1, 0], "{output:?}");
    let texts = texts(&output);
    assert_eq!(
        texts[1],
        "Tool push_then_block timed out after 1s; the process of pack fixture-hostile was killed; the pack restarts on the next call"
    );
    assert_eq!(texts[2], "pushed after");
    assert_eq!(texts[3], "Discarded: Marker: after. Reason: not that one");
    assert_eq!(texts[4], "Renamed 1 file:\n  a.txt → new-a.txt");
    assert_eq!(
        output.stderr,
        "warning: stopping the pack's process: Tool push_then_block timed out after 1s pack=fixture-hostile\n\
         warning: Took back \"Marker: overrun\": the call that pushed it timed out pack=fixture-hostile\n"
    );
}
