//! A pack built with `panic = "abort"` is refused at compile time: its
//! panics could not be caught, so the first one would kill the agent.

use xcsh_test_support::build_example_with;

#[test]
fn a_pack_built_with_panic_abort_does_not_compile_and_says_why() {
    let (built, stderr) = build_example_with(&["-C", "panic=abort"]);
    assert!(!built, "a panic=abort pack compiled:\n{stderr}");
    assert!(
        stderr.contains(
            "error: xcsh tool packs cannot be built with panic = \"abort\": a panic could no longer be caught and turned into an error result, and would kill the agent that loaded the pack; build with panic = \"unwind\" (the default)"
        ),
        "{stderr}"
    );
}
