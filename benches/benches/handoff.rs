//! Figure 10, the time limit's hand-off: one `noop` call of the benchmark
//! pack with the default time limit against the same call without a
//! limit, in wall time and in CPU time, along the three call paths:
//!
//! - `drive`: `xcsh_core::drive`, as `xcsh run` and `xcsh repl` call: the
//!   front end's loop and its calls on one session thread, the caller's
//!   thread the watchdog; without a limit, all on the caller's thread;
//! - `mcp`: `xcsh_mcp::timed_call::run`, as the MCP server calls: the call
//!   on one of tokio's blocking threads, awaited by an async task, its
//!   limit kept by the process's `xcsh_core::CallTimer` thread
//!   (`xcsh_core::watched_call`); without a limit, the same blocking task
//!   and no timer;
//! - `agent`: `xcsh_model::ModelLoop`, as `xcsh agent` runs: a model
//!   (here in-process, answering at once) asks for one `noop` per
//!   request, and the loop runs through `xcsh_core::drive`; each
//!   iteration is a request and its call;
//! - `session`: `Session::execute`, which no front end uses any more (a
//!   one-off call): the call runs on a reused worker thread and the
//!   caller waits for it at most the limit; without one, on the caller's
//!   thread;
//!
//! and the ways of making that hand-off that were weighed, each with the
//! same trivial job:
//!
//! - `inline`: the job on the caller's thread (the floor);
//! - `std_mpsc`: the runner before this figure: a job channel to the
//!   worker, a one-slot channel back, `recv_timeout` (both sides sleep in
//!   the kernel at once);
//! - `crossbeam`: the same over `crossbeam-channel`, which spins briefly
//!   before it sleeps;
//! - `watchdog`: the job on the caller's thread, a watchdog thread told
//!   each call's deadline. Cheap, but alone it cannot keep the guarantee:
//!   the caller's own thread is the one stuck in a call past the limit.
//!   `xcsh_core::drive` is this design made whole: the loop that would wait
//!   for the result runs on the stuck thread too, so the watchdog can hand
//!   the session to a fresh thread.
//!
//! The CPU table is measured outside criterion: process CPU time
//! (`getrusage`, every thread, user and system) over many calls, back to back
//! and with 1 ms between calls (as when a model thinks between them); the
//! limited call's CPU beyond the unlimited one's is what the hand-off
//! costs, its spinning included.

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use serde_json::json;
use xcsh_bench_pack::base_name;
use xcsh_benches::bench_pack_path;
use xcsh_benches::report::{Row, Target, duration, save_section, timing_table};
use xcsh_core::{
    CallLimits, CancellationToken, ProviderCapabilities, Session, ToolCall, ToolContext,
    ToolResult, Turns,
};
use xcsh_model::{
    Bounds, Conversation, EndReason, Event, ModelError, ModelLoop, Provider, Reply, Request,
};

/// The agent's default call time limit.
const LIMIT: Duration = Duration::from_secs(300);

type Job = Box<dyn FnOnce() -> u64 + Send>;

/// A session with the benchmark pack, with or without the time limit.
struct Fixture {
    _dir: tempfile::TempDir,
    session: Arc<Session>,
    noop: ToolCall,
}

impl Fixture {
    fn new(limited: bool) -> Self {
        let dir = tempfile::tempdir().expect("a working directory");
        let session = Session::new(dir.path()).with_limits(CallLimits {
            time: limited.then_some(LIMIT),
            ..CallLimits::default()
        });
        let pack = bench_pack_path().to_path_buf();
        let report = xcsh_loader::load_packs(&session, std::slice::from_ref(&pack));
        assert!(report.problems().is_empty(), "{:?}", report.problems());
        let name = report.loaded[0]
            .tools
            .iter()
            .find(|name| base_name(name) == "noop")
            .expect("the benchmark pack has noop")
            .clone();
        Self {
            noop: ToolCall::new("bench-noop", name, json!({})),
            _dir: dir,
            session: Arc::new(session),
        }
    }

    /// `calls` `noop` calls as the MCP server makes them, one after
    /// another from one async task; their wall time.
    fn mcp(&self, runtime: &tokio::runtime::Runtime, calls: u64) -> Duration {
        runtime.block_on(async {
            let started = Instant::now();
            for _ in 0..calls {
                let context =
                    ToolContext::new(self.noop.id.clone(), self.session.cwd().to_path_buf());
                let result = xcsh_mcp::timed_call::run(&self.session, self.noop.clone(), context)
                    .await
                    .expect("the blocking task ran");
                assert!(!result.is_error, "{}", result.text());
                black_box(result);
            }
            started.elapsed()
        })
    }

    fn call(&self) {
        let result = self.session.execute(&self.noop);
        assert!(!result.is_error, "{}", result.text());
        black_box(result);
    }

    /// `calls` `noop` calls through `xcsh_core::drive`, `gap` slept before
    /// each; the time from each call's start to its result, summed.
    fn drive(&self, calls: u64, gap: Duration) -> Duration {
        let turns = xcsh_core::drive(
            &self.session,
            NoopTurns {
                call: self.noop.clone(),
                left: calls,
                gap,
                started: None,
                wall: Duration::ZERO,
            },
        );
        assert_eq!(turns.left, 0);
        turns.wall
    }
}

impl Fixture {
    /// `turns` requests of `xcsh agent`'s model loop to a model that
    /// answers each with one `noop` call; their wall time. The loop runs
    /// 1000 requests at a time, so the conversation stays small.
    fn agent(&self, turns: u64) -> Duration {
        let model: Arc<dyn Provider> = Arc::new(NoopModel(Reply {
            calls: vec![self.noop.clone()],
            ..Reply::default()
        }));
        let started = Instant::now();
        let mut left = turns;
        while left > 0 {
            let chunk = u32::try_from(left.min(1000)).expect("1000 fits");
            left -= u64::from(chunk);
            let bounds = Bounds {
                turns: chunk,
                tokens: u64::MAX,
                time: None,
                ..Bounds::default()
            };
            let mut conversation = Conversation::new(None, "noop");
            let (outcome, _) = ModelLoop::new(
                Arc::clone(&self.session),
                Arc::clone(&model),
                ProviderCapabilities::default(),
                bounds,
            )
            .run(&mut conversation, |_: Event<'_>| {});
            assert_eq!(outcome.reason, EndReason::Turns { limit: chunk });
            black_box(conversation);
        }
        started.elapsed()
    }
}

/// A model that answers every request at once with the same reply.
struct NoopModel(Reply);

impl Provider for NoopModel {
    fn api(&self) -> &'static str {
        "bench"
    }

    fn complete(&self, _: &Request<'_>, _: &CancellationToken) -> Result<Reply, ModelError> {
        Ok(self.0.clone())
    }
}

/// The benchmark's front end: the same `noop` call `left` times.
struct NoopTurns {
    call: ToolCall,
    left: u64,
    gap: Duration,
    started: Option<Instant>,
    wall: Duration,
}

impl Turns for NoopTurns {
    fn next_call(&mut self, session: &Session) -> Option<(ToolCall, ToolContext)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        if !self.gap.is_zero() {
            std::thread::sleep(self.gap);
        }
        let context = ToolContext::new(self.call.id.clone(), session.cwd().to_path_buf());
        self.started = Some(Instant::now());
        Some((self.call.clone(), context))
    }

    fn take_result(&mut self, _: &Session, result: ToolResult) {
        if let Some(started) = self.started.take() {
            self.wall += started.elapsed();
        }
        assert!(!result.is_error, "{}", result.text());
        black_box(result);
    }
}

/// The runner before this figure: std channels both ways.
struct StdMpsc {
    jobs: mpsc::Sender<(Job, mpsc::SyncSender<u64>)>,
}

impl StdMpsc {
    fn new() -> Self {
        let (jobs, receiver) = mpsc::channel::<(Job, mpsc::SyncSender<u64>)>();
        std::thread::spawn(move || {
            while let Ok((job, reply)) = receiver.recv() {
                let _ = reply.send(job());
            }
        });
        Self { jobs }
    }

    fn call(&self, job: Job) -> u64 {
        let (reply, result) = mpsc::sync_channel(1);
        self.jobs.send((job, reply)).expect("the worker is alive");
        result.recv_timeout(LIMIT).expect("the job answers")
    }
}

/// The same over crossbeam-channel.
struct Crossbeam {
    jobs: crossbeam_channel::Sender<(Job, crossbeam_channel::Sender<u64>)>,
}

impl Crossbeam {
    fn new() -> Self {
        let (jobs, receiver) =
            crossbeam_channel::unbounded::<(Job, crossbeam_channel::Sender<u64>)>();
        std::thread::spawn(move || {
            while let Ok((job, reply)) = receiver.recv() {
                let _ = reply.send(job());
            }
        });
        Self { jobs }
    }

    fn call(&self, job: Job) -> u64 {
        let (reply, result) = crossbeam_channel::bounded(1);
        self.jobs.send((job, reply)).expect("the worker is alive");
        result.recv_timeout(LIMIT).expect("the job answers")
    }
}

/// The job on the caller's thread; a watchdog thread reads the deadline
/// of the call in flight (0: none) and would act when it passes.
struct Watchdog {
    deadline: Arc<AtomicU64>,
    started: Instant,
}

impl Watchdog {
    fn new() -> Self {
        let deadline = Arc::new(AtomicU64::new(0));
        let watched = Arc::clone(&deadline);
        let started = Instant::now();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(100));
                let due = watched.load(Ordering::Acquire);
                if due != 0 && due < nanos_since(started) {
                    // Past the limit: the caller's thread is in the call and
                    // cannot be given the timeout. This is the design's flaw.
                    black_box(due);
                }
            }
        });
        Self { deadline, started }
    }

    fn call(&self, job: Job) -> u64 {
        let due = nanos_since(self.started) + LIMIT.as_nanos() as u64;
        self.deadline.store(due, Ordering::Release);
        let value = job();
        self.deadline.store(0, Ordering::Release);
        value
    }
}

fn nanos_since(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

fn job() -> Job {
    Box::new(|| black_box(7))
}

/// A runtime as `xcsh mcp` starts one.
fn mcp_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn bench_handoff(c: &mut Criterion, unlimited: &Fixture, limited: &Fixture) {
    let mut group = c.benchmark_group("handoff");
    let runtime = mcp_runtime();
    group.bench_function(BenchmarkId::new("mcp", "unlimited"), |b| {
        b.iter_custom(|iters| unlimited.mcp(&runtime, iters));
    });
    group.bench_function(BenchmarkId::new("mcp", "limited"), |b| {
        b.iter_custom(|iters| limited.mcp(&runtime, iters));
    });
    group.bench_function(BenchmarkId::new("drive", "unlimited"), |b| {
        b.iter_custom(|iters| unlimited.drive(iters, Duration::ZERO));
    });
    group.bench_function(BenchmarkId::new("drive", "limited"), |b| {
        b.iter_custom(|iters| limited.drive(iters, Duration::ZERO));
    });
    group.bench_function(BenchmarkId::new("agent", "unlimited"), |b| {
        b.iter_custom(|iters| unlimited.agent(iters));
    });
    group.bench_function(BenchmarkId::new("agent", "limited"), |b| {
        b.iter_custom(|iters| limited.agent(iters));
    });
    group.bench_function(BenchmarkId::new("session", "unlimited"), |b| {
        b.iter(|| unlimited.call());
    });
    group.bench_function(BenchmarkId::new("session", "limited"), |b| {
        b.iter(|| limited.call());
    });
    group.bench_function(BenchmarkId::new("candidate", "inline"), |b| {
        b.iter(|| job()());
    });
    let std_mpsc = StdMpsc::new();
    group.bench_function(BenchmarkId::new("candidate", "std_mpsc"), |b| {
        b.iter(|| std_mpsc.call(job()));
    });
    let crossbeam = Crossbeam::new();
    group.bench_function(BenchmarkId::new("candidate", "crossbeam"), |b| {
        b.iter(|| crossbeam.call(job()));
    });
    let watchdog = Watchdog::new();
    group.bench_function(BenchmarkId::new("candidate", "watchdog"), |b| {
        b.iter(|| watchdog.call(job()));
    });
    group.finish();
}

/// CPU time of this process, every thread, user and system.
fn process_cpu() -> Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    let usage = getrusage(UsageWho::RUSAGE_SELF).expect("getrusage");
    let micros = |t: nix::sys::time::TimeVal| {
        u64::try_from(t.tv_sec()).unwrap_or(0) * 1_000_000 + u64::try_from(t.tv_usec()).unwrap_or(0)
    };
    Duration::from_micros(micros(usage.user_time()) + micros(usage.system_time()))
}

/// Wall and CPU nanoseconds per call of `call`, over `calls` calls with
/// `gap` slept between them (the sleep's wall time left out).
fn per_call(calls: u32, gap: Duration, call: impl Fn()) -> (f64, f64) {
    for _ in 0..calls / 10 {
        call();
    }
    let mut wall = Duration::ZERO;
    let cpu_before = process_cpu();
    for _ in 0..calls {
        if !gap.is_zero() {
            std::thread::sleep(gap);
        }
        let started = Instant::now();
        call();
        wall += started.elapsed();
    }
    let cpu = process_cpu() - cpu_before;
    let n = f64::from(calls);
    (wall.as_nanos() as f64 / n, cpu.as_nanos() as f64 / n)
}

/// Wall and CPU nanoseconds per call of `calls` `noop` calls through
/// `fixture.drive`, `gap` between them (the gap's wall time left out).
fn per_driven_call(fixture: &Fixture, calls: u32, gap: Duration) -> (f64, f64) {
    fixture.drive(u64::from(calls / 10), gap);
    let cpu_before = process_cpu();
    let wall = fixture.drive(u64::from(calls), gap);
    let cpu = process_cpu() - cpu_before;
    let n = f64::from(calls);
    (wall.as_nanos() as f64 / n, cpu.as_nanos() as f64 / n)
}

/// The CPU table: each path and pattern, unlimited then limited, in the
/// same minute.
fn cpu_table(unlimited: &Fixture, limited: &Fixture) -> String {
    let mut table = String::from(
        "| path | calls | wall, limited | wall, unlimited | CPU per call, limited | CPU per call, unlimited | CPU the hand-off adds per call |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let patterns = [
        ("back to back, 200000 calls", 200_000, Duration::ZERO),
        ("1 ms apart, 2000 calls", 2_000, Duration::from_millis(1)),
    ];
    for (what, calls, gap) in patterns {
        let (wall_u, cpu_u) = per_driven_call(unlimited, calls, gap);
        let (wall_l, cpu_l) = per_driven_call(limited, calls, gap);
        cpu_row(
            &mut table,
            "`xcsh_core::drive`",
            what,
            (wall_l, wall_u, cpu_l, cpu_u),
        );
        let runtime = mcp_runtime();
        let (wall_u, cpu_u) = per_call(calls, gap, || {
            unlimited.mcp(&runtime, 1);
        });
        let (wall_l, cpu_l) = per_call(calls, gap, || {
            limited.mcp(&runtime, 1);
        });
        cpu_row(
            &mut table,
            "`xcsh_mcp::timed_call::run`",
            what,
            (wall_l, wall_u, cpu_l, cpu_u),
        );
        let (wall_u, cpu_u) = per_call(calls, gap, || unlimited.call());
        let (wall_l, cpu_l) = per_call(calls, gap, || limited.call());
        cpu_row(
            &mut table,
            "`Session::execute`",
            what,
            (wall_l, wall_u, cpu_l, cpu_u),
        );
    }
    table
}

/// One row of the CPU table: limited and unlimited wall, then CPU.
fn cpu_row(
    table: &mut String,
    path: &str,
    what: &str,
    (wall_l, wall_u, cpu_l, cpu_u): (f64, f64, f64, f64),
) {
    let _ = writeln!(
        table,
        "| {path} | {what} | {} | {} | {} | {} | {} |",
        duration(wall_l),
        duration(wall_u),
        duration(cpu_l),
        duration(cpu_u),
        duration(cpu_l - cpu_u),
    );
}

fn main() {
    let unlimited = Fixture::new(false);
    let limited = Fixture::new(true);
    let mut criterion = Criterion::default().configure_from_args();
    bench_handoff(&mut criterion, &unlimited, &limited);
    criterion.final_summary();

    let cpu = cpu_table(&unlimited, &limited);
    let rows = [
        Row::new(
            "`noop` through `xcsh_core::drive` (`xcsh run`, `xcsh repl`), default time limit vs none",
            "handoff/drive/limited",
            "handoff/drive/unlimited",
        )
        .target(Target::Ratio(1.5)),
        Row::new(
            "`noop` through the MCP server's call path, default time limit vs none",
            "handoff/mcp/limited",
            "handoff/mcp/unlimited",
        )
        .target(Target::Ratio(1.5)),
        Row::new(
            "a request and its `noop` call through `xcsh agent`'s model loop (model in-process), default time limit vs none",
            "handoff/agent/limited",
            "handoff/agent/unlimited",
        )
        .target(Target::Ratio(1.5)),
        Row::new(
            "`noop` through `Session::execute` (no front end: one-off calls), default time limit vs none",
            "handoff/session/limited",
            "handoff/session/unlimited",
        ),
        Row::new(
            "candidate: std channels both ways (the runner before) vs inline",
            "handoff/candidate/std_mpsc",
            "handoff/candidate/inline",
        ),
        Row::new(
            "candidate: crossbeam-channel both ways vs inline",
            "handoff/candidate/crossbeam",
            "handoff/candidate/inline",
        ),
        Row::new(
            "candidate: on the caller's thread with a watchdog vs inline",
            "handoff/candidate/watchdog",
            "handoff/candidate/inline",
        ),
    ];
    save_section(
        "10-handoff",
        &format!(
            "### 10. Time-limit hand-off\n\nOne `noop` call with the default time limit \
             (300 s) against the same call without a limit, along the three call paths: \
             `xcsh_core::drive` (`xcsh run`, `xcsh repl`, `xcsh agent`: the front end's loop and its calls on one session \
             thread, the caller's thread the watchdog), the MCP server's (the call on a \
             blocking task, its limit kept by one timer thread) and \
             `Session::execute` (no front end: the call on a reused worker thread, \
             both sides spinning briefly, adaptively, before sleeping); and the hand-offs weighed, each with a trivial job, \
             against that job run inline.\n\n{}\nCPU time of the whole process \
             (`getrusage`: user and system, every thread), the same `noop` call; wall time per call excludes the \
             gap:\n\n{}",
            timing_table(&rows),
            cpu
        ),
    );
}
