//! Figure 3, resolve cycle: a pack pushes a pending action through the host
//! API and `resolve` applies it through the session, against a bare
//! `PendingActionStore` push + pop of an action built in-process.
//!
//! A pack can only push from inside one of its tools, so the cycle is
//! measured two ways: the benchmark pack's `stage` tool pushes 100 actions
//! per call and each is resolved by its own `resolve` call (the call that
//! pushes is shared by 100 cycles), and one `stage` call per cycle (a whole
//! extra tool call per cycle). A third row pushes from the host side, to
//! split the ABI push from the `resolve` tool's own cost. The apply does
//! nothing; the session's queued reminders are taken after every batch, as
//! an agent does every turn.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::json;
use xcsh_bench_pack::{STAGED_LABEL, base_name};
use xcsh_benches::bench_pack_path;
use xcsh_benches::report::{Row, Target, save_section, timing_table};
use xcsh_core::{PendingAction, PendingActionStore, Session, ToolCall, ToolOutput};

/// Actions `stage` pushes per call in the batched cycle.
const BATCH: u64 = 100;

/// A session with the benchmark pack loaded, and its calls.
struct Fixture {
    _dir: tempfile::TempDir,
    session: Session,
    stage: String,
    resolve: ToolCall,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("a working directory");
        let session = Session::new(dir.path());
        let report = xcsh_loader::load_packs(&session, &[bench_pack_path().to_path_buf()]);
        assert!(report.problems().is_empty(), "{:?}", report.problems());
        let stage = report.loaded[0]
            .tools
            .iter()
            .find(|name| base_name(name) == "stage")
            .expect("the benchmark pack's stage tool")
            .clone();
        let resolve = ToolCall::new(
            "bench-resolve",
            "resolve",
            json!({"action": "apply", "reason": "benchmark"}),
        );
        Self {
            _dir: dir,
            session,
            stage,
            resolve,
        }
    }

    /// Has the pack push `count` actions in one call.
    fn stage(&self, count: u64) {
        let call = ToolCall::new("bench-stage", &self.stage, json!({ "count": count }));
        let result = self.session.execute(&call);
        assert!(!result.is_error, "{}", result.text());
    }

    /// Resolves the newest action.
    fn resolve(&self) {
        let result = self.session.execute(&self.resolve);
        assert!(!result.is_error, "{}", result.text());
        black_box(result);
    }

    /// `iters` cycles, the pack pushing up to `batch` actions per call.
    fn cycles(&self, iters: u64, batch: u64) -> Duration {
        let start = Instant::now();
        let mut done = 0;
        while done < iters {
            let count = batch.min(iters - done);
            self.stage(count);
            for _ in 0..count {
                self.resolve();
            }
            black_box(self.session.take_messages());
            done += count;
        }
        start.elapsed()
    }
}

fn noop_action() -> PendingAction {
    PendingAction::try_new(STAGED_LABEL, |_reason| Ok(ToolOutput::default()))
        .expect("a non-empty label")
}

fn bench_resolve(c: &mut Criterion) {
    let mut group = c.benchmark_group("resolve");
    let store = PendingActionStore::new();
    group.bench_function("store_push_pop", |b| {
        b.iter(|| {
            store.push(noop_action());
            black_box(store.pop())
        });
    });

    let fixture = Fixture::new();
    group.bench_function("pack_push_batched", |b| {
        b.iter_custom(|iters| fixture.cycles(iters, BATCH));
    });
    group.bench_function("pack_push_one_call_each", |b| {
        b.iter_custom(|iters| fixture.cycles(iters, 1));
    });
    group.bench_function("host_push", |b| {
        b.iter(|| {
            fixture.session.store().push(noop_action());
            fixture.resolve();
            black_box(fixture.session.take_messages())
        });
    });
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_resolve(&mut criterion);
    criterion.final_summary();

    let rows = [
        Row::new(
            format!("pack push (`stage`, {BATCH} per call) + `resolve` apply"),
            "resolve/pack_push_batched",
            "resolve/store_push_pop",
        )
        .target(Target::Absolute(500.0)),
        Row::new(
            "one `stage` call pushing 1 + `resolve` apply",
            "resolve/pack_push_one_call_each",
            "resolve/store_push_pop",
        ),
        Row::new(
            "host-side push + `resolve` apply (no pack)",
            "resolve/host_push",
            "resolve/store_push_pop",
        ),
    ];
    save_section(
        "3-resolve",
        &format!(
            "### 3. Resolve cycle\n\nPer cycle: a pending action pushed, then applied by a \
             `resolve` call through the session, against a bare store push + pop \
             (baseline). The apply does nothing.\n\n{}",
            timing_table(&rows)
        ),
    );
}
