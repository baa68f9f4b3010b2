//! Figure 4, start-up: `xcsh tools --plugin-dir DIR` as a whole process with
//! 0, 10 and 100 copies of the benchmark pack in `DIR`: wall time (spawn to
//! exit) and peak resident set size. The baseline is the same command with
//! no pack, in the same run.
//!
//! Each run is measured by a copy of this benchmark started as a middleman
//! (`startup __measure PROGRAM ARGS…`): it times the spawn and wait of the
//! one child it has, then reads the peak RSS of its waited-for children from
//! `getrusage(RUSAGE_CHILDREN)`, which is that child's. The process runs in
//! an empty working directory with `HOME` and the XDG directories pointed at
//! empty ones, so no user config or default plugin directory adds packs.
//!
//! Unix only: elsewhere this benchmark says so and stops.

use std::path::Path;
use std::process::Command;

use xcsh_benches::process_run::{
    Run, in_home, median, run_tools_with_plugin_dir, selected, serve_middleman,
};
use xcsh_benches::report::{duration, save_section};
use xcsh_benches::{PackCopies, bench_pack_path, xcsh_binary};

/// Pack counts of the figure.
const COUNTS: [usize; 3] = [0, 10, 100];

/// Timed runs per count (after one untimed run that warms the page cache).
const RUNS: usize = 21;

/// Targets for 100 packs: wall time and peak RSS.
const WALL_TARGET_MS: f64 = 50.0;
const RSS_TARGET_MIB: f64 = 30.0;

/// How many tools `xcsh tools` lists with the packs of `dir` (a sanity
/// check that the copies really load).
fn listed_tools(xcsh: &Path, dir: &Path, home: &Path) -> usize {
    let mut command = Command::new(xcsh);
    command.arg("tools").arg("--plugin-dir").arg(dir);
    in_home(&mut command, home);
    let output = command.output().expect("run xcsh tools");
    assert!(output.status.success(), "xcsh tools failed: {output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| line.trim_start().starts_with("noop_"))
        .count()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if serve_middleman(&args) {
        return;
    }
    if !selected("startup", &args) {
        return;
    }
    let Some(xcsh) = xcsh_binary() else {
        save_section(
            "4-startup",
            "### 4. Start-up\n\nNot measured: the `xcsh` binary did not build.\n",
        );
        return;
    };
    let pack = bench_pack_path();
    let home = tempfile::tempdir().expect("an empty home directory");

    let mut results = Vec::new();
    for count in COUNTS {
        let copies = PackCopies::new(pack, count);
        let tools = listed_tools(&xcsh, copies.dir(), home.path());
        assert_eq!(tools, count, "every copy's noop is listed");
        let runs: Vec<Run> = (0..RUNS)
            .map(|_| run_tools_with_plugin_dir(&xcsh, copies.dir(), home.path()))
            .collect();
        let wall = median(runs.iter().map(|r| r.wall_ns).collect());
        let rss = median(runs.iter().map(|r| r.rss_kib).collect());
        let max_rss = runs.iter().map(|r| r.rss_kib).fold(0.0, f64::max);
        println!(
            "startup/{count} packs: wall {} (median of {RUNS}), peak RSS {:.1} MiB (max {:.1})",
            duration(wall),
            rss / 1024.0,
            max_rss / 1024.0
        );
        results.push((count, wall, rss, max_rss));
    }

    let (_, base_wall, base_rss, _) = results[0];
    let mut table = String::from(
        "| packs | wall (median) | × no packs | peak RSS (median) | max | × no packs | target | verdict |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
    );
    for &(count, wall, rss, max_rss) in &results {
        let (target, verdict) = if count == 100 {
            let met = wall / 1e6 <= WALL_TARGET_MS && max_rss / 1024.0 <= RSS_TARGET_MIB;
            (
                format!("≤ {WALL_TARGET_MS} ms, ≤ {RSS_TARGET_MIB} MiB"),
                if met { "met" } else { "**missed**" },
            )
        } else {
            ("—".to_owned(), "—")
        };
        table.push_str(&format!(
            "| {count} | {} | {:.2}× | {:.1} MiB | {:.1} MiB | {:.2}× | {target} | {verdict} |\n",
            duration(wall),
            wall / base_wall,
            rss / 1024.0,
            max_rss / 1024.0,
            rss / base_rss,
        ));
    }
    save_section(
        "4-startup",
        &format!(
            "### 4. Start-up\n\n`xcsh tools --plugin-dir DIR` as a whole process, DIR holding N \
             copies of the benchmark pack (3 tools each); median of {RUNS} runs after a warm-up \
             run, against the same command with no pack (baseline).\n\n{table}"
        ),
    );
}
