//! Figure 11, script throughput: `xcsh run` over a script of 100,000 `noop`
//! calls of the benchmark pack, the pack in-process and isolated, against
//! the floor: one process that reads the same script into memory, then
//! parses each line, calls the session (the same session `xcsh run` has:
//! the pack in-process, the default time limit, undo snapshots,
//! `xcsh_core::drive`) and
//! serialises each step
//! into a buffer, with no I/O. Calls per second (lines over wall time,
//! start-up included for all three) and peak RSS, each run in a fresh
//! process measured by a middleman (see `xcsh_benches::process_run`).
//!
//! Unix only: elsewhere this benchmark says so and stops.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use xcsh_agent::start_session;
use xcsh_bench_pack::base_name;
use xcsh_benches::process_run::{
    MIDDLEMAN_ARG, Run, in_home, median, run_through, selected, serve_middleman,
};
use xcsh_benches::report::{duration, save_section};
use xcsh_benches::{bench_pack_path, xcsh_binary};
use xcsh_core::{Session, ToolCall, ToolContext, ToolResult, Turns};
use xcsh_script::{Started, Step, Steps, parse_line};
use xcsh_sources::{DEFAULT_TOOL_TIMEOUT, RunPolicy};
use xcsh_undo::{Limits, UndoObserver};

/// Calls in the script.
const CALLS: usize = 100_000;

/// Timed runs of each mode.
const RUNS: usize = 3;

/// The argument that makes this benchmark run the floor loop:
/// `script __floor SCRIPT PACK`.
const FLOOR_ARG: &str = "__floor";

/// Targets: calls per second as a share of the floor's.
const IN_PROCESS_TARGET: f64 = 0.5;
const ISOLATED_TARGET: f64 = 0.25;

/// The floor loop, in this process: the script's lines parsed, called
/// through [`xcsh_core::drive`] (as `xcsh run` calls them) and serialised;
/// nothing written anywhere.
fn floor(script: &Path, pack: &Path) {
    let dir = tempfile::tempdir().expect("a working directory");
    let policy = RunPolicy {
        tool_timeout: Some(DEFAULT_TOOL_TIMEOUT),
        ..RunPolicy::default()
    };
    let (session, report) =
        start_session(dir.path(), &[pack.to_path_buf()], &policy).expect("a session");
    assert!(report.problems().is_empty(), "{:?}", report.problems());
    // The undo snapshots `xcsh run` sets up by default: after every call
    // the observer looks at the undo log for a person's undos.
    let undo_root = tempfile::tempdir().expect("a directory for undo snapshots");
    session.set_apply_observer(Arc::new(UndoObserver::new(
        undo_root.path(),
        dir.path(),
        Limits::default(),
    )));
    let session = Arc::new(session);
    let floor = xcsh_core::drive(
        &session,
        Floor {
            text: std::fs::read_to_string(script).expect("the script"),
            at: 0,
            line: 0,
            steps: Steps::new(),
            running: None,
            out: String::new(),
            errors: 0,
        },
    );
    assert_eq!(floor.errors, 0, "every call of the floor succeeds");
    std::hint::black_box(floor.out);
    session.end();
}

/// The floor's side of the drive: lines from memory, steps into a buffer.
struct Floor {
    text: String,
    /// Where the next line starts.
    at: usize,
    line: usize,
    steps: Steps,
    running: Option<Started>,
    out: String,
    errors: usize,
}

impl Floor {
    fn record(&mut self, step: &Step) {
        self.out.clear();
        self.errors += usize::from(step.result.is_error);
        let _ = writeln!(self.out, "{}", step.to_json_line());
    }
}

impl Turns for Floor {
    fn next_call(&mut self, session: &Session) -> Option<(ToolCall, ToolContext)> {
        while self.at < self.text.len() {
            let end = self.text[self.at..]
                .find('\n')
                .map_or(self.text.len(), |i| self.at + i);
            let text = &self.text[self.at..end];
            self.at = end + 1;
            self.line += 1;
            match parse_line(text) {
                Some(Ok(request)) => {
                    let (started, call, context) = self.steps.start(session, self.line, request);
                    self.running = Some(started);
                    return Some((call, context));
                }
                Some(Err(rejected)) => {
                    let message = rejected.on_line(self.line);
                    let step = self.steps.reject(session, self.line, rejected.id, message);
                    self.record(&step);
                }
                None => {}
            }
        }
        None
    }

    fn take_result(&mut self, session: &Session, result: ToolResult) {
        let started = self.running.take().expect("a call is running");
        let step = self.steps.finish(session, started, result);
        self.record(&step);
    }
}

/// The benchmark pack's `noop`, as `xcsh tools` names it.
fn noop_name(xcsh: &Path, pack: &Path, home: &Path) -> String {
    let output = with_home(Command::new(xcsh), home)
        .arg("tools")
        .arg("--plugin")
        .arg(pack)
        .output()
        .expect("run xcsh tools");
    assert!(output.status.success(), "xcsh tools failed: {output:?}");
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .find(|word| base_name(word) == "noop" && word.starts_with("noop_"))
        .expect("xcsh tools lists noop")
        .to_owned()
}

/// `command` in `home`, with no user config or default packs.
fn with_home(mut command: Command, home: &Path) -> Command {
    in_home(&mut command, home);
    command
}

/// One measured run of `program args…` through the middleman.
fn measured(program: &Path, args: &[&std::ffi::OsStr], home: &Path) -> Run {
    let me = std::env::current_exe().expect("this benchmark's path");
    let mut command = Command::new(me);
    command.arg(MIDDLEMAN_ARG).arg(program).args(args);
    run_through(&mut with_home(command, home))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if serve_middleman(&args) {
        return;
    }
    if args.get(1).map(String::as_str) == Some(FLOOR_ARG) {
        floor(Path::new(&args[2]), Path::new(&args[3]));
        return;
    }
    if !selected("script", &args) {
        return;
    }
    let Some(xcsh) = xcsh_binary() else {
        save_section(
            "11-script",
            "### 11. Script throughput\n\nNot measured: the `xcsh` binary did not build.\n",
        );
        return;
    };
    let pack: PathBuf = bench_pack_path().to_path_buf();
    let home = tempfile::tempdir().expect("an empty home directory");
    let script = home.path().join("noop.jsonl");
    let line = format!(
        "{{\"tool\": \"{}\"}}\n",
        noop_name(&xcsh, &pack, home.path())
    );
    std::fs::write(&script, line.repeat(CALLS)).expect("write the script");

    let me = std::env::current_exe().expect("this benchmark's path");
    let floor_args = [FLOOR_ARG.as_ref(), script.as_os_str(), pack.as_os_str()];
    let run_args = [
        "run".as_ref(),
        "--plugin".as_ref(),
        pack.as_os_str(),
        script.as_os_str(),
    ];
    let isolated_args = [
        "run".as_ref(),
        "--isolate".as_ref(),
        "--plugin".as_ref(),
        pack.as_os_str(),
        script.as_os_str(),
    ];
    let modes: [(&str, &Path, &[&std::ffi::OsStr]); 3] = [
        (
            "floor: parse, call, serialise in one process",
            &me,
            &floor_args,
        ),
        ("`xcsh run`, pack in-process", &xcsh, &run_args),
        ("`xcsh run --isolate`", &xcsh, &isolated_args),
    ];
    // Interleaved, so that a change in the machine's load hits every mode.
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); modes.len()];
    for _ in 0..RUNS {
        for (i, (_, program, args)) in modes.iter().enumerate() {
            runs[i].push(measured(program, args, home.path()));
        }
    }
    let results: Vec<(f64, f64, f64)> = runs
        .iter()
        .map(|runs| {
            let wall = median(runs.iter().map(|r| r.wall_ns).collect());
            let cpu = median(runs.iter().map(|r| r.cpu_ns).collect());
            let rss = runs.iter().map(|r| r.rss_kib).fold(0.0, f64::max);
            (
                CALLS as f64 / (wall / 1e9),
                rss / 1024.0,
                cpu / CALLS as f64,
            )
        })
        .collect();
    let floor_rate = results[0].0;
    let mut table = String::from(
        "| run | calls/s (median of 3) | share of the floor | CPU per call (every process) | wall per call | peak RSS (max) | target | verdict |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
    );
    for (i, ((what, _, _), (rate, rss, cpu))) in modes.iter().zip(&results).enumerate() {
        let share = rate / floor_rate;
        let target = match i {
            1 => Some(IN_PROCESS_TARGET),
            2 => Some(ISOLATED_TARGET),
            _ => None,
        };
        let (target, verdict) = target.map_or(("—".to_owned(), "—"), |t| {
            (
                format!("≥ {:.0} % of the floor", t * 100.0),
                if share >= t { "met" } else { "**missed**" },
            )
        });
        let _ = writeln!(
            table,
            "| {what} | {rate:.0} | {:.0} % | {} | {} | {rss:.1} MiB | {target} | {verdict} |",
            share * 100.0,
            duration(*cpu),
            duration(1e9 / rate),
        );
        println!("script/{what}: {rate:.0} calls/s, peak RSS {rss:.1} MiB");
    }
    save_section(
        "11-script",
        &format!(
            "### 11. Script throughput\n\n{CALLS} lines of `{{\"tool\": \"noop_…\"}}` through \
             `xcsh run FILE` (output to `/dev/null`), the benchmark pack in-process and \
             isolated, against the floor: one process that parses the same lines, calls the \
             same session (default time limit, undo snapshots, `xcsh_core::drive`) and serialises each step into a buffer, no \
             I/O. Each run is a fresh process (start-up included); {RUNS} runs of each, \
             interleaved.\n\n{table}"
        ),
    );
}
