//! Figure 6, isolation: the same benchmark-pack calls in-process and in an
//! isolated pack's own process, in one run, and the start-up of an
//! isolated pack against the same pack in-process.
//!
//! - one `noop` call through `Session::execute` (in-process: the ABI
//!   crossing; isolated: a frame each way over the pipes, a worker thread
//!   in the pack's process, and the ABI crossing there);
//! - one push + `resolve` cycle: a `stage` call pushing one action, then
//!   `resolve` applying it (isolated: the push crosses back before the
//!   call's reply, and the apply crosses again);
//! - start-up: `xcsh tools --plugin PACK` as a whole process, with and
//!   without `--isolate` (isolated: the pack's process is started, opens
//!   the pack and sandboxes itself; `xcsh tools` waits for its tool list).
//!
//! The floor beside them: a bare round trip to a second process over
//! pipes, blocking and polling (`xcsh_benches::floor`).
//!
//! Isolated runs twice: in namespaces (xcsh's own engine, the default where it
//! works) and with Landlock and seccomp alone (`namespaces = false`), so
//! the namespaces' own cost is a ratio within the run.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{BenchmarkId, Criterion};
use serde_json::json;
use xcsh_agent::start_session;
use xcsh_bench_pack::base_name;
use xcsh_benches::floor::{Floor, PingPong, serve_if_child};
use xcsh_benches::report::{Row, Target, save_section, timing_table};
use xcsh_benches::{bench_pack_path, xcsh_binary};
use xcsh_core::{Session, ToolCall};
use xcsh_isolate::IsolationPolicy;
use xcsh_sources::{DEFAULT_TOOL_TIMEOUT, RunPolicy};

/// How the benchmark pack runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    InProcess,
    /// Isolated in namespaces (xcsh's own engine) with Landlock and seccomp.
    Isolated,
    /// Isolated with Landlock and seccomp alone (`namespaces = false`):
    /// how every isolated pack ran before the namespaces.
    LandlockOnly,
}

/// A session with the benchmark pack, in one mode.
struct Fixture {
    _dir: tempfile::TempDir,
    session: Session,
    noop: ToolCall,
    stage: ToolCall,
    resolve: ToolCall,
}

impl Fixture {
    /// In `mode`; `limited` with the default call time limit (in-process,
    /// a limited call runs on a thread of its own).
    fn new(xcsh: &Path, mode: Mode, limited: bool) -> Self {
        let dir = tempfile::tempdir().expect("a working directory");
        let policy = RunPolicy {
            isolation: IsolationPolicy {
                all: mode != Mode::InProcess,
                without_namespaces: mode == Mode::LandlockOnly,
                host_exe: Some(xcsh.to_path_buf()),
                ..IsolationPolicy::default()
            },
            tool_timeout: limited.then_some(DEFAULT_TOOL_TIMEOUT),
            ..RunPolicy::default()
        };
        let (session, report) =
            start_session(dir.path(), &[bench_pack_path().to_path_buf()], &policy)
                .expect("a session");
        assert!(report.problems().is_empty(), "{:?}", report.problems());
        let named = |base: &str| {
            report.loaded[0]
                .tools
                .iter()
                .find(|name| base_name(name) == base)
                .unwrap_or_else(|| panic!("the benchmark pack has no {base}"))
                .clone()
        };
        Self {
            noop: ToolCall::new("bench-noop", named("noop"), json!({})),
            stage: ToolCall::new("bench-stage", named("stage"), json!({"count": 1})),
            resolve: ToolCall::new(
                "bench-resolve",
                "resolve",
                json!({"action": "apply", "reason": "benchmark"}),
            ),
            _dir: dir,
            session,
        }
    }

    fn run(&self, call: &ToolCall) {
        let result = self.session.execute(call);
        assert!(!result.is_error, "{}", result.text());
        black_box(result);
    }

    fn cycle(&self) {
        self.run(&self.stage);
        self.run(&self.resolve);
        black_box(self.session.take_messages());
    }
}

/// `xcsh tools [--isolate] --plugin PACK`, as a whole process (with
/// `namespaces = false` in the user's config for [`Mode::LandlockOnly`]).
fn tools(xcsh: &Path, pack: &Path, home: &Path, mode: Mode) {
    let mut command = Command::new(xcsh);
    command.arg("tools");
    if mode != Mode::InProcess {
        command.arg("--isolate");
    }
    let config = home.join("config/xcsh/config.toml");
    if mode == Mode::LandlockOnly {
        std::fs::create_dir_all(config.parent().expect("a directory")).expect("config dir");
        std::fs::write(&config, "[isolation]\nnamespaces = false\n").expect("config");
    } else {
        let _ = std::fs::remove_file(&config);
    }
    let output = command
        .arg("--plugin")
        .arg(pack)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env_remove("XCSH_PLUGIN_PATH")
        .env_remove("XCSH_ISOLATE")
        .output()
        .expect("run xcsh tools");
    assert!(output.status.success(), "xcsh tools failed: {output:?}");
}

fn bench_isolation(c: &mut Criterion, xcsh: &Path) {
    let fixtures = [
        ("in_process", Fixture::new(xcsh, Mode::InProcess, true)),
        (
            "in_process_unlimited",
            Fixture::new(xcsh, Mode::InProcess, false),
        ),
        ("isolated", Fixture::new(xcsh, Mode::Isolated, true)),
        (
            "landlock_only",
            Fixture::new(xcsh, Mode::LandlockOnly, true),
        ),
    ];
    let mut group = c.benchmark_group("isolate");
    for (mode, fixture) in &fixtures {
        group.bench_function(BenchmarkId::new("call", mode), |b| {
            b.iter(|| fixture.run(&fixture.noop));
        });
        group.bench_function(BenchmarkId::new("cycle", mode), |b| {
            b.iter(|| fixture.cycle())
        });
    }
    for floor in Floor::ALL {
        let ping_pong = PingPong::start(floor);
        group.bench_function(BenchmarkId::new("floor", floor.name()), |b| {
            b.iter(|| ping_pong.round_trip());
        });
    }
    group.finish();

    let pack: PathBuf = bench_pack_path().to_path_buf();
    let home = tempfile::tempdir().expect("a home directory");
    let mut group = c.benchmark_group("isolate_startup");
    group.sample_size(20);
    for (name, mode) in [
        ("in_process", Mode::InProcess),
        ("isolated", Mode::Isolated),
        ("landlock_only", Mode::LandlockOnly),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| tools(xcsh, &pack, home.path(), mode));
        });
    }
    group.finish();
}

fn main() {
    serve_if_child();
    let Some(xcsh) = xcsh_binary() else {
        save_section(
            "6-isolate",
            "### 6. Isolation\n\nNot measured: the `xcsh` binary did not build.\n",
        );
        return;
    };
    let mut criterion = Criterion::default().configure_from_args();
    bench_isolation(&mut criterion, &xcsh);
    criterion.final_summary();

    let rows = [
        Row::new(
            "`noop` call, isolated vs in-process (both with the default time limit)",
            "isolate/call/isolated",
            "isolate/call/in_process",
        )
        .target(Target::Overhead(50_000.0)),
        Row::new(
            "`noop` call, isolated vs in-process without a time limit",
            "isolate/call/isolated",
            "isolate/call/in_process_unlimited",
        )
        .target(Target::Overhead(20_000.0)),
        Row::new(
            "`noop` call, isolated vs a bare pipe round trip between two processes",
            "isolate/call/isolated",
            "isolate/floor/pipe",
        )
        .target(Target::Ratio(2.0)),
        Row::new(
            "floor: pipe round trip, both sides polling, vs blocking",
            "isolate/floor/pipe_spin",
            "isolate/floor/pipe",
        ),
        Row::new(
            "`stage` push 1 + `resolve` apply, isolated vs in-process (time limit)",
            "isolate/cycle/isolated",
            "isolate/cycle/in_process",
        ),
        Row::new(
            "`stage` push 1 + `resolve` apply, isolated vs in-process without a time limit",
            "isolate/cycle/isolated",
            "isolate/cycle/in_process_unlimited",
        ),
        Row::new(
            "`xcsh tools --plugin PACK` start-up, `--isolate` vs in-process",
            "isolate_startup/isolated",
            "isolate_startup/in_process",
        )
        .target(Target::Overhead(5_000_000.0)),
        Row::new(
            "`noop` call, namespaces vs Landlock alone (both isolated, seccomp)",
            "isolate/call/isolated",
            "isolate/call/landlock_only",
        ),
        Row::new(
            "`stage` push 1 + `resolve` apply, namespaces vs Landlock alone",
            "isolate/cycle/isolated",
            "isolate/cycle/landlock_only",
        ),
        Row::new(
            "`xcsh tools --plugin PACK --isolate` start-up, namespaces vs Landlock alone",
            "isolate_startup/isolated",
            "isolate_startup/landlock_only",
        ),
    ];
    save_section(
        "6-isolate",
        &format!(
            "### 6. Isolation\n\nThe benchmark pack in-process (baseline) and isolated in its own \
             process (`--isolate`), in the same run: one `noop` call through the session, one \
             push + `resolve` cycle (a `stage` call pushing one action, then `resolve` applying \
             it), and `xcsh tools --plugin PACK` as a whole process. With a time limit (the \
             default, 300 s) an in-process call runs on a thread of its own, so the in-process \
             baseline is given with and without one; an isolated call is limited either way, \
             by the agent waiting at most that long for its reply. The last three rows put \
             the namespace sandbox (bubblewrap around the pack's process, with Landlock and \
             the seccomp filter inside) against the same pack isolated with Landlock and \
             seccomp alone (`namespaces = false`), how isolated packs ran before bubblewrap: \
             what the namespaces cost. The floor is a bare round trip to a second process \
             answering at once: one byte each way over pipes, read blocking or with both sides \
             polling.\n\n{}",
            timing_table(&rows)
        ),
    );
}
