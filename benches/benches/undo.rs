//! Figure 9, undo as whole processes on a tree of 10,000 files: `xcsh run`
//! applying an `ast_edit` of 1 file and of 1,000 files with undo snapshots
//! (the default) and without (`[undo] enabled = false`), and `xcsh undo
//! --yes` undoing that apply against `xcsh undo --list` (start-up, config,
//! the store opened, the log read), all in the same run, interleaved
//! round by round.
//!
//! Each `xcsh run` is a new session: its first snapshot compares every
//! file's stamp (started in the background at the push, here finished by
//! the apply right after it). The in-session cost of later applies is
//! `cargo bench -p xcsh-undo --bench apply`.
//!
//! Unix only: elsewhere this benchmark says so and stops.

use std::path::Path;
use std::process::{Command, Stdio};

use xcsh_benches::process_run::{
    MIDDLEMAN_ARG, in_home, median, run_through, selected, serve_middleman,
};
use xcsh_benches::report::{duration, save_section};
use xcsh_benches::xcsh_binary;

/// Files in the tree.
const FILES: usize = 10_000;

/// Timed rounds per case.
const RUNS: usize = 7;

/// The text of tree file `n`.
fn original(n: usize) -> String {
    format!("fn f() {{ old({n}); }}\n")
}

/// Tree file `n`, relative.
fn name(n: usize) -> String {
    format!("d{:02}/f{n}.rs", n % 100)
}

/// Writes back every tree file not as it was before any apply.
fn reset(work: &Path) {
    for n in 0..FILES {
        let path = work.join(name(n));
        if std::fs::read_to_string(&path).ok() != Some(original(n)) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, original(n)).unwrap();
        }
    }
}

/// `xcsh ARGS` in `work` with the user directories of `home`, measured by
/// the middleman; `stdin` is the script of `xcsh run`.
fn timed(xcsh: &Path, args: &[&str], home: &Path, work: &Path, stdin: &str) -> f64 {
    if stdin.is_empty() {
        let me = std::env::current_exe().expect("this benchmark's path");
        let mut command = Command::new(me);
        command.arg(MIDDLEMAN_ARG).arg(xcsh).args(args);
        in_home(&mut command, home);
        command.current_dir(work);
        return run_through(&mut command).wall_ns;
    }
    // The middleman gives its child no input: a script goes through a
    // file named on the command line instead.
    let script = home.join("script.jsonl");
    std::fs::write(&script, stdin).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.push(script.to_str().unwrap());
    timed(xcsh, &all, home, work, "")
}

/// Runs `xcsh ARGS` untimed and checks it succeeded.
fn untimed(xcsh: &Path, args: &[&str], home: &Path, work: &Path) -> String {
    let mut command = Command::new(xcsh);
    command.args(args);
    in_home(&mut command, home);
    let output = command
        .current_dir(work)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// A difference in nanoseconds as signed milliseconds (noise can make it
/// negative).
fn signed_ms(ns: f64) -> String {
    format!("{:+.1} ms", ns / 1e6)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if serve_middleman(&args) {
        return;
    }
    if !selected("undo", &args) {
        return;
    }
    let Some(xcsh) = xcsh_binary() else {
        save_section(
            "9-undo",
            "### 9. Undo\n\nNot measured: the `xcsh` binary did not build.\n",
        );
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let (with_home, without_home, work) = (
        scratch.path().join("with"),
        scratch.path().join("without"),
        scratch.path().join("work"),
    );
    let config = without_home.join(".config/xcsh/config.toml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::write(&config, "[undo]\nenabled = false\n").unwrap();
    std::fs::create_dir_all(&with_home).unwrap();
    reset(&work);
    // The first session in the directory reads and stores every file once.
    untimed(&xcsh, &["undo", "--list"], &with_home, &work);
    let mut table = String::from(
        "| case (10,000 files) | without snapshots | with snapshots | extra | `xcsh undo --list` | `xcsh undo --yes` |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for changed in [1, 1_000] {
        let mut edit =
            serde_json::json!({"pattern": "old($A)", "rewrite": "new($A)", "language": "rust"});
        if changed == 1 {
            edit["path"] = name(0).into();
        } else {
            edit["max_files"] = changed.into();
        }
        let script = format!(
            "{}\n{}\n",
            serde_json::json!({"tool": "ast_edit", "arguments": edit}),
            serde_json::json!({"tool": "resolve", "arguments": {"action": "apply", "reason": "bench"}})
        );
        // Warm-up: one round untimed.
        let warm = with_home.join("warm.jsonl");
        std::fs::write(&warm, &script).unwrap();
        untimed(&xcsh, &["run", warm.to_str().unwrap()], &with_home, &work);
        untimed(&xcsh, &["undo", "--yes"], &with_home, &work);
        let (mut with, mut without, mut list, mut undo) = (vec![], vec![], vec![], vec![]);
        for _ in 0..RUNS {
            with.push(timed(&xcsh, &["run"], &with_home, &work, &script));
            list.push(timed(&xcsh, &["undo", "--list"], &with_home, &work, ""));
            undo.push(timed(&xcsh, &["undo", "--yes"], &with_home, &work, ""));
            without.push(timed(&xcsh, &["run"], &without_home, &work, &script));
            reset(&work);
        }
        let (with, without) = (median(with), median(without));
        let (list, undo) = (median(list), median(undo));
        println!(
            "undo/{changed} changed: apply {} without, {} with; undo {} (list {})",
            duration(without),
            duration(with),
            duration(undo),
            duration(list)
        );
        table.push_str(&format!(
            "| `xcsh run`: ast_edit + apply, {changed} file{} changed | {} | {} | {} | {} | {} |\n",
            if changed == 1 { "" } else { "s" },
            duration(without),
            duration(with),
            signed_ms(with - without),
            duration(list),
            duration(undo),
        ));
    }
    save_section(
        "9-undo",
        &format!(
            "### 9. Undo\n\nWhole processes on a tree of {FILES} files: `xcsh run` (a new \
             session each: `ast_edit` then `resolve apply`) with undo snapshots and without \
             (`[undo] enabled = false`), and `xcsh undo --yes` of that apply against `xcsh undo \
             --list` (start-up, config, store opened, log read), median of {RUNS} interleaved \
             rounds, in the same run.\n\n{table}"
        ),
    );
}
