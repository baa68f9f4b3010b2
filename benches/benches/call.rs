//! Figure 2, call: one pack tool call through the whole host path
//! (`Session::execute`: lookup, argument validation, the ABI crossing,
//! result conversion) and through the ABI crossing alone
//! (`PackTool::execute`: arguments to JSON text, the vtable call, the pack
//! decoding them, its output converted back), against the same tool code
//! called directly, in-process, with arguments already decoded.
//!
//! Two tools of the benchmark pack: `noop` (`{}` in, `ok` out: the bare
//! overhead) and `plan_rename` (batch-rename's arguments for eight files;
//! returns a preview and details like batch-rename's, planned in memory).
//! Every variant's time includes dropping its result. The crossing takes
//! its arguments by value, so it is timed with a clone of them and set
//! against the direct call plus the same clone.

use std::hint::black_box;
use std::sync::Arc;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion};
use serde_json::{Value, json};
use xcsh_bench_pack::{NoopParams, base_name, noop, plan_rename};
use xcsh_benches::arguments::{batch_rename_arguments, batch_rename_params};
use xcsh_benches::bench_pack_path;
use xcsh_benches::report::{Row, Target, save_section, timing_table};
use xcsh_core::{Session, Tool, ToolCall, ToolContext};
use xcsh_loader::{HostBinding, PackLibrary, PackTool};

/// A session with the benchmark pack loaded, and the pack's tools adapted
/// once more for calls that skip the session.
struct Fixture {
    _dir: tempfile::TempDir,
    session: Session,
    tools: Vec<Arc<PackTool>>,
    context: ToolContext,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("a working directory");
        let session = Session::new(dir.path());
        let pack = bench_pack_path().to_path_buf();
        let report = xcsh_loader::load_packs(&session, std::slice::from_ref(&pack));
        assert!(report.problems().is_empty(), "{:?}", report.problems());
        let tools = PackLibrary::open(&pack)
            .and_then(|library| library.create_tools(&HostBinding::for_session(&session)))
            .expect("the benchmark pack's tools")
            .into_iter()
            .map(Arc::new)
            .collect();
        let context = ToolContext::new("bench-call", dir.path());
        Self {
            _dir: dir,
            session,
            tools,
            context,
        }
    }

    /// The adapted tool whose base name is `base`.
    fn tool(&self, base: &str) -> Arc<PackTool> {
        self.tools
            .iter()
            .find(|tool| base_name(tool.name()) == base)
            .cloned()
            .unwrap_or_else(|| panic!("the benchmark pack has no {base}"))
    }

    /// Benchmarks the ABI crossing and the whole host path for `base` with
    /// `arguments`.
    fn bench_host_paths(
        &self,
        group: &mut BenchmarkGroup<'_, WallTime>,
        base: &str,
        arguments: &Value,
    ) {
        let tool = self.tool(base);
        // The crossing takes its arguments by value: the clone this needs is
        // timed, and so it is in the baseline this row is set against.
        group.bench_function(BenchmarkId::new("abi", base), |b| {
            b.iter(|| {
                tool.execute(arguments.clone(), &self.context)
                    .expect("tool ok")
            });
        });
        let call = ToolCall::new("bench-call", tool.name(), arguments.clone());
        group.bench_function(BenchmarkId::new("session", base), |b| {
            b.iter(|| {
                let result = self.session.execute(&call);
                assert!(!result.is_error, "{}", result.text());
                result
            });
        });
    }
}

/// The baselines: the tool's code called directly (`direct/{base}`), and
/// the same plus the clone of `arguments` the crossing benchmark needs
/// (`direct_and_clone/{base}`).
fn bench_direct<O>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    base: &str,
    arguments: &Value,
    run: impl Fn() -> O,
) {
    group.bench_function(BenchmarkId::new("direct", base), |b| b.iter(&run));
    group.bench_function(BenchmarkId::new("direct_and_clone", base), |b| {
        b.iter(|| {
            black_box(arguments.clone());
            run()
        });
    });
}

fn bench_calls(c: &mut Criterion) {
    let fixture = Fixture::new();
    let mut group = c.benchmark_group("call");

    let params = NoopParams::default();
    let arguments = json!({});
    bench_direct(&mut group, "noop", &arguments, || noop(black_box(&params)));
    fixture.bench_host_paths(&mut group, "noop", &arguments);

    let params = batch_rename_params();
    let arguments = batch_rename_arguments();
    bench_direct(&mut group, "plan_rename", &arguments, || {
        plan_rename(black_box(&params))
    });
    fixture.bench_host_paths(&mut group, "plan_rename", &arguments);
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_calls(&mut criterion);
    criterion.final_summary();

    let rows = [
        Row::new(
            "`noop` `{}`: ABI crossing",
            "call/abi/noop",
            "call/direct_and_clone/noop",
        )
        .target(Target::Overhead(100.0)),
        Row::new(
            "`noop` `{}`: whole host path",
            "call/session/noop",
            "call/direct/noop",
        )
        .target(Target::Overhead(1_000.0)),
        Row::new(
            "`plan_rename`, batch-rename-sized: ABI crossing",
            "call/abi/plan_rename",
            "call/direct_and_clone/plan_rename",
        )
        .target(Target::Overhead(100.0)),
        Row::new(
            "`plan_rename`, batch-rename-sized: whole host path",
            "call/session/plan_rename",
            "call/direct/plan_rename",
        )
        .target(Target::Overhead(1_000.0)),
    ];
    save_section(
        "2-call",
        &format!(
            "### 2. Call\n\nOne tool call through `Session::execute` (whole host path) and \
             through `PackTool::execute` (ABI crossing alone), against the pack's own tool \
             code called directly with decoded arguments (baseline; for the crossing rows \
             plus the argument clone the crossing benchmark needs). The batch-rename-sized \
             argument is {} bytes of JSON: eight files and a prefix rule.\n\n{}",
            batch_rename_arguments().to_string().len(),
            timing_table(&rows)
        ),
    );
}
