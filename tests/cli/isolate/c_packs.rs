//! Packs written in C and C++ against `xcsh_pack.h` (`plugins/c-packs`):
//! the seed scenarios string for string with the Rust batch-rename, in
//! process and isolated; a store that is not there; a C pack that
//! segfaults, aborts or returns malformed JSON costs one line.

use std::os::unix::process::ExitStatusExt as _;
use std::process::Stdio;

use serde_json::json;
use xcsh_core::{Session, ToolCall};
use xcsh_loader::{HostBinding, STORE_UNAVAILABLE, load_packs_with};

use super::parity::scenarios_with;
use super::{Mode, Options, TestAgent, library};
use crate::support::{Env, arg};

const C_PACK: &str = "c:batch_rename_c";
const CXX_PACK: &str = "c:batch_rename_cxx";
const CRASHY: &str = "c:crashy_c";

#[test]
fn c_and_cxx_packs_pass_the_seed_scenarios_as_the_rust_pack_does() {
    let rust = scenarios_with(&["batch-rename", "fixture-hostile"], Mode::InProcess);
    for pack in [C_PACK, CXX_PACK] {
        for mode in [Mode::InProcess, Mode::Isolated] {
            let steps = scenarios_with(&[pack], mode);
            assert_eq!(steps.len(), rust.len());
            for (theirs, ours) in steps.iter().zip(&rust) {
                assert_eq!(
                    theirs, ours,
                    "{pack} ({mode:?}) differs from the Rust pack at {:?}",
                    ours.what
                );
            }
        }
    }
}

/// A runtime without a store (`HostBinding::without_store`): a push gets
/// the seed's message, and the action's data is released. Only in
/// process: every front end binds its session's store, and an isolated
/// pack's process binds its own session's.
#[test]
fn without_a_store_a_c_pack_push_gets_the_seed_message() {
    for pack in [C_PACK, CXX_PACK] {
        let dir = tempfile::TempDir::new().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        let session = Session::new(dir.path());
        let report = load_packs_with(
            &session,
            &HostBinding::without_store(dir.path()),
            &[library(pack)],
        );
        assert!(report.is_clean(), "{:?}", report.problems());
        let result = session.execute(&ToolCall::new(
            "c-1",
            "batch_rename_preview",
            json!({"files": ["a.txt"], "rule": {"kind": "suffix", "suffix": "-1"}}),
        ));
        assert!(result.is_error, "{pack}");
        assert_eq!(result.text(), STORE_UNAVAILABLE, "{pack}");
        let marker = session.execute(&ToolCall::new("c-2", "push_marker", json!({"tag": "m"})));
        assert_eq!(
            (marker.is_error, marker.text().as_str()),
            (true, STORE_UNAVAILABLE),
            "{pack}"
        );
        assert_eq!(super::files(dir.path()), ["a.txt"]);
        assert!(session.store().views().is_empty());
    }
}

/// Isolated, a crash or bad JSON costs the one call, in one line; the
/// pending action, the other pack and the crashed pack itself go on.
#[test]
fn an_isolated_c_pack_that_crashes_costs_one_line() {
    let agent = TestAgent::new(&[CRASHY, C_PACK], &["a.txt"], Options::default());
    assert!(!agent.preview_suffix(&["a.txt"], "-old").is_error);
    for (tool, expected) in [
        (
            "c_segfault",
            "Tool c_segfault crashed: the process of pack crashy-c was killed by signal SIGSEGV; the pack restarts on the next call",
        ),
        (
            "c_abort",
            "Tool c_abort crashed: the process of pack crashy-c was killed by signal SIGABRT; the pack restarts on the next call",
        ),
        (
            "c_bad_json",
            "pack returned invalid details JSON: key must be a string at line 1 column 2",
        ),
    ] {
        let result = agent.call(tool, json!({}));
        assert!(result.is_error, "{tool}");
        assert_eq!(result.text(), expected);
        assert_eq!(agent.call("noop", json!({})).text(), "ok");
        assert_eq!(agent.pending(), ["Batch Rename: 1 file"]);
    }
    let applied = agent.resolve("apply", "still here");
    assert_eq!(applied.text(), "Renamed 1 file:\n  a.txt → a-old.txt");
}

/// `xcsh run` over the crashy C pack in process, one call: what it
/// printed and how it ended.
fn run_in_process(tool: &str) -> (Option<i32>, String, String) {
    let env = Env::new();
    let crashy = library(CRASHY);
    let script = format!(
        "{}\n{}\n",
        json!({"tool": tool}),
        json!({"tool": "noop", "arguments": {}})
    );
    let script_path = env.write("calls.jsonl", &script);
    let output = env
        .command(&[
            "run",
            "--plugin",
            arg(&crashy),
            "--plugin",
            arg(&library(C_PACK)),
            arg(&script_path),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    (
        output.status.signal(),
        String::from_utf8(output.stdout).unwrap(),
        stderr.lines().last().unwrap_or_default().to_owned(),
    )
}

#[test]
fn in_process_a_c_pack_crash_is_named_in_one_line_and_bad_json_is_an_error() {
    let path = std::fs::canonicalize(library(CRASHY)).unwrap();
    for (tool, signal, number) in [("c_segfault", "SIGSEGV", 11), ("c_abort", "SIGABRT", 6)] {
        let (died_of, _, last) = run_in_process(tool);
        assert_eq!(died_of, Some(number), "{tool}");
        assert_eq!(
            last,
            format!(
                "fatal: tool pack crashy-c 0.1.0 ({}) crashed the agent with {signal} while running tool {tool} {}",
                path.display(),
                xcsh_loader::ISOLATION_HINT
            )
        );
    }
    let (died_of, stdout, _) = run_in_process("c_bad_json");
    assert_eq!(died_of, None);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0]["result"]["isError"], true);
    assert_eq!(
        lines[0]["result"]["content"][0]["text"],
        "pack returned invalid details JSON: key must be a string at line 1 column 2"
    );
    assert_eq!(lines[1]["result"]["content"][0]["text"], "ok");
}

/// Compiles `source` into a pack library in `dir`.
fn compile_pack(dir: &std::path::Path, name: &str, source: &str) -> std::path::PathBuf {
    let include =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/xcsh-c-abi/include");
    let source_path = dir.join(format!("{name}.c"));
    std::fs::write(&source_path, source).unwrap();
    let library = dir.join(format!("lib{name}.so"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let status = std::process::Command::new(&cc)
        .args(["-shared", "-fPIC", "-std=c11", "-I"])
        .arg(include)
        .arg(&source_path)
        .arg("-o")
        .arg(&library)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {cc} ({e}): install gcc or set CC"));
    assert!(status.success());
    library
}

/// What loading the library at `path` in process reports.
fn load_problems(path: &std::path::Path) -> Vec<String> {
    let dir = tempfile::TempDir::new().unwrap();
    let session = Session::new(dir.path());
    load_packs_with(
        &session,
        &HostBinding::for_session(&session),
        &[path.to_path_buf()],
    )
    .problems()
}

#[test]
fn a_c_pack_of_another_version_or_refusing_to_load_is_one_line() {
    let dir = tempfile::TempDir::new().unwrap();
    let future = compile_pack(
        dir.path(),
        "future",
        "#include \"xcsh_pack.h\"\n\
         XCSH_PACK_VISIBLE const uint32_t xcsh_pack_abi_version = 2;\n\
         XcshStatus xcsh_pack_entry(const XcshHost *h, XcshPack *p) { (void)h; (void)p; return XCSH_OK; }\n",
    );
    let problems = load_problems(&future);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].ends_with(
            "C pack built against xcsh_pack.h version 2; this xcsh loads version 1: rebuild the pack \
             with the header of this xcsh (crates/xcsh-c-abi/include/xcsh_pack.h)"
        ),
        "{problems:?}"
    );
    let refusing = compile_pack(
        dir.path(),
        "refusing",
        "#include \"xcsh_pack.h\"\n\
         XCSH_PACK_DEFINE_VERSION;\n\
         XcshStatus xcsh_pack_entry(const XcshHost *h, XcshPack *p) {\n\
           (void)h; p->error = XCSH_STR(\"no licence file\"); return XCSH_REFUSED; }\n",
    );
    let problems = load_problems(&refusing);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .ends_with("factory returned an error: xcsh_pack_entry returned 2: no licence file"),
        "{problems:?}"
    );
}
