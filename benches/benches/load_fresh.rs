//! Figure 1 again, each load in a fresh process: `load_packs` of the
//! copies in a directory against `dlopen` + root-symbol lookup of the very
//! same files, each side in a process of its own that has loaded nothing
//! else.
//!
//! The in-process `load` benchmark keeps every copy it ever loaded mapped
//! (libraries are never unloaded), and the dynamic linker's work per
//! `dlopen` grows with the libraries already loaded. Here nothing
//! accumulates: this benchmark starts itself as `load_fresh __dlopen DIR`
//! or `load_fresh __load DIR`, the child times only its loading and prints
//! the time; process start-up is not timed.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use xcsh_benches::process_run::{median, selected};
use xcsh_benches::report::{duration, save_section};
use xcsh_benches::{PackCopies, bench_pack_path};
use xcsh_core::Session;
use xcsh_loader::discover::pack_files_in;

/// Pack counts of the figure.
const COUNTS: [usize; 3] = [1, 10, 100];

/// Runs per count and side (alternating sides).
const RUNS: usize = 11;

/// In the child: loads the packs of `dir` one way and prints the nanoseconds
/// it took.
fn child(mode: &str, dir: &Path) {
    let paths = pack_files_in(dir).expect("list the pack copies");
    let session = Session::new(dir);
    let start = Instant::now();
    match mode {
        "__dlopen" => {
            for path in &paths {
                let header = abi_stable::library::lib_header_from_path(path).expect("open a copy");
                std::hint::black_box(header);
            }
        }
        _ => {
            let report = xcsh_loader::load_packs(&session, &paths);
            assert!(report.problems().is_empty(), "{:?}", report.problems());
            assert_eq!(report.loaded.len(), paths.len());
        }
    }
    println!("{}", start.elapsed().as_nanos());
}

/// Starts a child in `mode` on `dir`; its load time in nanoseconds.
fn run_child(mode: &str, dir: &Path) -> f64 {
    let me = std::env::current_exe().expect("this benchmark's path");
    let output = Command::new(me)
        .arg(mode)
        .arg(dir)
        .stderr(Stdio::inherit())
        .output()
        .expect("run a loading child");
    assert!(output.status.success(), "{mode} failed: {}", output.status);
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("the child prints nanoseconds")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(mode @ ("__dlopen" | "__load")) = args.get(1).map(String::as_str) {
        child(mode, Path::new(&args[2]));
        return;
    }
    if !selected("load_fresh", &args) {
        return;
    }

    let mut table = String::from(
        "| packs | `dlopen` + lookup (median) | `load_packs` (median) | ratio | per pack over baseline | target | verdict |\n\
         | ---: | ---: | ---: | ---: | ---: | --- | --- |\n",
    );
    for count in COUNTS {
        let copies = PackCopies::new(bench_pack_path(), count);
        // One untimed pair first: page cache and dynamic-linker caches warm.
        run_child("__dlopen", copies.dir());
        run_child("__load", copies.dir());
        let (mut raw, mut host) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            raw.push(run_child("__dlopen", copies.dir()));
            host.push(run_child("__load", copies.dir()));
        }
        let (raw, host) = (median(raw), median(host));
        println!(
            "load_fresh/{count}: dlopen {} load_packs {} ({:.2}x)",
            duration(raw),
            duration(host),
            host / raw
        );
        let (target, verdict) = if count == 100 {
            (
                "≤ 2× baseline",
                if host <= 2.0 * raw {
                    "met"
                } else {
                    "**missed**"
                },
            )
        } else {
            ("—", "—")
        };
        table.push_str(&format!(
            "| {count} | {} | {} | {:.2}× | {} | {target} | {verdict} |\n",
            duration(raw),
            duration(host),
            host / raw,
            duration((host - raw) / count as f64),
        ));
    }
    save_section(
        "1b-load-fresh",
        &format!(
            "### 1b. Load, each in a fresh process\n\nThe same N copies loaded by `load_packs` \
             in one child process and opened with `dlopen` + root-symbol lookup in another; \
             the child times its loading only (median of {RUNS} runs per side, alternating, \
             after a warm-up pair).\n\n{table}"
        ),
    );
}
