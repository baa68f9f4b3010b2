//! Figure 8, the first-seen check: `xcsh tools --plugin-dir DIR` as a whole
//! process, DIR holding N copies of the benchmark pack, with every library
//! new to the user (an empty cache: each is opened in a `xcsh pack-probe`
//! child first) against the same command with every library seen before
//! (the cache remembers them: one `fstat` and two small reads each), in
//! the same run. Also the same command with no pack.
//!
//! Each run is measured through the middleman of `startup` (spawn to exit,
//! peak RSS of the one child). First-seen runs each get a new empty home
//! directory (so an empty `~/.cache/xcsh/first-seen`); seen runs share one
//! home warmed by an untimed run.
//!
//! Unix only: elsewhere this benchmark says so and stops.

use xcsh_benches::process_run::{
    Run, median, run_tools_with_plugin_dir, selected, serve_middleman,
};
use xcsh_benches::report::{duration, save_section};
use xcsh_benches::{PackCopies, bench_pack_path, xcsh_binary};

/// Pack counts of the figure.
const COUNTS: [usize; 3] = [0, 1, 10];

/// Timed runs per case.
const RUNS: usize = 15;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if serve_middleman(&args) {
        return;
    }
    if !selected("first_seen", &args) {
        return;
    }
    let Some(xcsh) = xcsh_binary() else {
        save_section(
            "8-first-seen",
            "### 8. The first-seen check\n\nNot measured: the `xcsh` binary did not build.\n",
        );
        return;
    };
    let pack = bench_pack_path();
    let mut table = String::from(
        "| packs | first seen (median) | seen before (median) | ratio | first-seen cost per pack | first seen, peak RSS | seen, peak RSS |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for count in COUNTS {
        let copies = PackCopies::new(pack, count);
        let first: Vec<Run> = (0..RUNS)
            .map(|_| {
                let home = tempfile::tempdir().expect("an empty home directory");
                run_tools_with_plugin_dir(&xcsh, copies.dir(), home.path())
            })
            .collect();
        let home = tempfile::tempdir().expect("a home directory");
        run_tools_with_plugin_dir(&xcsh, copies.dir(), home.path());
        let seen: Vec<Run> = (0..RUNS)
            .map(|_| run_tools_with_plugin_dir(&xcsh, copies.dir(), home.path()))
            .collect();
        let first_wall = median(first.iter().map(|r| r.wall_ns).collect());
        let seen_wall = median(seen.iter().map(|r| r.wall_ns).collect());
        let first_rss = median(first.iter().map(|r| r.rss_kib).collect());
        let seen_rss = median(seen.iter().map(|r| r.rss_kib).collect());
        let per_pack = if count == 0 {
            "—".to_owned()
        } else {
            duration((first_wall - seen_wall) / count as f64)
        };
        println!(
            "first_seen/{count} packs: first seen {}, seen {} ({:.2}×)",
            duration(first_wall),
            duration(seen_wall),
            first_wall / seen_wall
        );
        table.push_str(&format!(
            "| {count} | {} | {} | {:.2}× | {per_pack} | {:.1} MiB | {:.1} MiB |\n",
            duration(first_wall),
            duration(seen_wall),
            first_wall / seen_wall,
            first_rss / 1024.0,
            seen_rss / 1024.0,
        ));
    }
    save_section(
        "8-first-seen",
        &format!(
            "### 8. The first-seen check\n\n`xcsh tools --plugin-dir DIR` as a whole process, DIR \
             holding N copies of the benchmark pack: every library new to the user (each opened \
             in a `xcsh pack-probe` child first; a new empty home per run) against every library \
             seen before (the user's cache remembers them; one warmed home), median of {RUNS} \
             runs each, in the same run.\n\n{table}"
        ),
    );
}
