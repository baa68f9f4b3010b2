//! Figure 1, load: 1, 10 and 100 packs opened, checked, their factories
//! called and their tools registered in a session (`load_packs`), against
//! opening the same number of copies with `dlopen` and looking up their
//! root-module symbol.
//!
//! Every timed load gets fresh copies of the benchmark pack (see
//! [`PackCopies`]), made before the clock starts; libraries are never
//! unloaded, so the process keeps every copy it has loaded mapped. Both
//! sides pay the same `dlopen`: mapping, relocating (the pack is linked
//! with `BIND_NOW`) and running the library's initialisers.
//!
//! The baseline is `abi_stable::library::lib_header_from_path`: libloading's
//! `Library::new` (`dlopen`), `dlsym` of the root-module symbol, and
//! abi_stable's compare of the header's own version, a few integers. The
//! benchmarks take no `unsafe` code, so it stands in for a bare
//! `dlopen` + `dlsym`, at the same cost.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode};
use xcsh_benches::report::{Row, Target, save_section, timing_table};
use xcsh_benches::{PackCopies, bench_pack_path};
use xcsh_core::Session;

/// Pack counts of the figure.
const COUNTS: [usize; 3] = [1, 10, 100];

/// Tools each benchmark pack registers.
const TOOLS_PER_PACK: usize = 3;

/// Times `load` over `iters` fresh sets of `count` copies; copying is not
/// timed.
fn timed_loads(iters: u64, count: usize, load: impl Fn(&Session, &[PathBuf])) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let copies = PackCopies::new(bench_pack_path(), count);
        let session = Session::new(copies.dir());
        let start = Instant::now();
        load(&session, copies.paths());
        total += start.elapsed();
    }
    total
}

/// `dlopen` + root-symbol lookup of every path.
fn raw_open(_session: &Session, paths: &[PathBuf]) {
    for path in paths {
        let header = abi_stable::library::lib_header_from_path(path).expect("open a pack copy");
        black_box(header);
    }
}

/// The host's whole load: open, check, factory, registration.
fn host_load(session: &Session, paths: &[PathBuf]) {
    let report = xcsh_loader::load_packs(session, paths);
    assert!(report.problems().is_empty(), "{:?}", report.problems());
    assert_eq!(report.loaded.len(), paths.len());
    black_box(report);
}

fn bench_load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(1));
    // Each baseline right before its figure, so both meet the same number
    // of libraries already loaded in the process.
    for count in COUNTS {
        group.bench_with_input(BenchmarkId::new("dlopen", count), &count, |b, &n| {
            b.iter_custom(|iters| timed_loads(iters, n, raw_open));
        });
        group.bench_with_input(BenchmarkId::new("load_packs", count), &count, |b, &n| {
            b.iter_custom(|iters| timed_loads(iters, n, host_load));
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench_load(&mut criterion);
    criterion.final_summary();

    let pack_size = std::fs::metadata(bench_pack_path()).map_or(0, |m| m.len());
    let rows: Vec<Row> = COUNTS
        .iter()
        .map(|n| {
            let row = Row::new(
                format!("{n} pack(s), {} tools", n * TOOLS_PER_PACK),
                &format!("load/load_packs/{n}"),
                &format!("load/dlopen/{n}"),
            );
            if *n == 100 {
                row.target(Target::Ratio(2.0))
            } else {
                row
            }
        })
        .collect();
    save_section(
        "1-load",
        &format!(
            "### 1. Load\n\n`load_packs` of N distinct copies of the benchmark pack \
             ({:.1} MiB, {TOOLS_PER_PACK} tools) into a fresh session, against `dlopen` + \
             root-symbol lookup of N other copies.\n\n{}",
            pack_size as f64 / (1024.0 * 1024.0),
            timing_table(&rows)
        ),
    );
}
