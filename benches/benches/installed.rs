//! Figure 7, installed packs: `xcsh tools` as a whole process (wall time,
//! peak RSS) against the number of packs (0, 1, 10, 50, 100), for packs
//! given with `--plugin-dir` (opened at start-up), installed packs
//! (offered from the registry, never opened) and isolated packs
//! (`--isolate`, a `--plugin` per copy: offered from their start records,
//! and at a first start-up, a process each); the baseline is the same
//! command with no pack, in the same run. Then the first call of an
//! installed pack (checks the file, hashes it, opens it) against a call of
//! the already opened pack, in-process through the agent library.
//!
//! Draws `BENCHMARKS-installed.svg` beside `BENCHMARKS.md` (plotters, SVG
//! backend: no font files needed) and writes report section 7.
//!
//! The registry of N installed packs is written here, with xcsh's own
//! registry type (so in the very format `xcsh pack add` writes), from one
//! real `xcsh pack add` record, once per copy (each copy its own name,
//! path, stamp and tool names, the same bytes and hash): `xcsh tools`
//! reads the registry file and nothing else of them.
//!
//! Unix only (peak RSS through `getrusage`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use plotters::prelude::*;
use serde_json::json;
use xcsh_benches::process_run::{Run, in_home, median, run_xcsh, selected, serve_middleman};
use xcsh_benches::report::{duration, save_section};
use xcsh_benches::{PackCopies, bench_pack_path, xcsh_binary};
use xcsh_sources::registry::{FileStamp, REGISTRY_VERSION};
use xcsh_sources::{PackRecord, Registry};

/// Pack counts of the figure.
const COUNTS: [usize; 5] = [0, 1, 10, 50, 100];

/// Timed runs per point (after one untimed warm-up run), interleaved.
const RUNS: usize = 15;

/// Calls of the opened pack timed after each first call.
const OPENED_CALLS: usize = 5;

/// First calls measured (each on a fresh copy, as a library opens once per
/// process).
const FIRST_CALLS: usize = 15;

/// Target for 100 installed packs against none: both ratios at most this.
const TARGET_RATIO: f64 = 1.5;

/// Target for 100 isolated packs against none, wall time (issue 25).
const ISOLATED_TARGET_RATIO: f64 = 5.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    PluginDir,
    Installed,
    /// Isolated, offered from the start records the warm-up run wrote.
    Isolated,
    /// Isolated, the start records removed before every run: the first
    /// start-up in a directory, a process per pack.
    IsolatedFirst,
}

impl Mode {
    const ALL: [Mode; 4] = [
        Mode::PluginDir,
        Mode::Installed,
        Mode::Isolated,
        Mode::IsolatedFirst,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::PluginDir => "--plugin-dir",
            Self::Installed => "installed",
            Self::Isolated => "isolated (--isolate --plugin per copy), recorded",
            Self::IsolatedFirst => "isolated, first start-up (no start records)",
        }
    }
}

/// Where `xcsh` keeps isolated packs' start records in the scratch home
/// `home` (see `xcsh_benches::process_run::in_home`).
fn start_records(home: &Path) -> PathBuf {
    home.join(".cache/xcsh/isolated-starts")
}

/// One mode's points: pack count, wall time (ns), peak RSS (KiB).
type Series = Vec<(usize, f64, f64)>;

fn registry_path(home: &Path) -> PathBuf {
    home.join(".local/share/xcsh/packs.json")
}

/// `xcsh args…` once, its standard output.
fn xcsh_output(xcsh: &Path, args: &[&str], home: &Path) -> String {
    let mut command = Command::new(xcsh);
    command.args(args);
    in_home(&mut command, home);
    let output = command.output().expect("run xcsh");
    assert!(output.status.success(), "xcsh {args:?} failed: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Writes a registry of `copies`, each recorded as `template` (one real
/// `xcsh pack add` record) with its own name, path, stamp and tool names.
fn write_registry(home: &Path, template: &PackRecord, copies: &PackCopies) {
    let mut registry = Registry {
        version: REGISTRY_VERSION,
        packs: Default::default(),
    };
    for (i, path) in copies.paths().iter().enumerate() {
        let path = std::fs::canonicalize(path).expect("canonical copy");
        let metadata = std::fs::metadata(&path).expect("copy metadata");
        let mut record = template.clone();
        record.name = format!("bench-copy-{i:04}");
        record.file = FileStamp::of(&metadata, template.file.sha256.clone());
        record.path = path;
        for tool in &mut record.tools {
            tool.name = format!("{}_{i:04}", tool.name);
        }
        registry.packs.insert(record.name.clone(), record);
    }
    registry
        .save(&registry_path(home))
        .expect("write the registry");
}

/// One point's set-up: its home directory, pack copies and arguments.
struct Setup {
    home: tempfile::TempDir,
    _copies: PackCopies,
    args: Vec<String>,
}

/// Sets up `count` packs in `mode` and checks that `xcsh tools` lists them.
fn setup(xcsh: &Path, template: &PackRecord, mode: Mode, count: usize) -> Setup {
    let pack = bench_pack_path();
    let home = tempfile::tempdir().expect("an empty home directory");
    // In-process packs may be renamed; isolated and installed ones must be
    // in files named for them (see `PackCopies::named_for_the_pack`).
    let copies = match mode {
        Mode::PluginDir => PackCopies::new(pack, count),
        Mode::Isolated | Mode::IsolatedFirst | Mode::Installed => {
            PackCopies::named_for_the_pack(pack, count)
        }
    };
    let dir = copies.dir().display().to_string();
    let args: Vec<String> = match mode {
        Mode::PluginDir => vec!["tools".into(), "--plugin-dir".into(), dir],
        Mode::Isolated | Mode::IsolatedFirst => {
            let mut args = vec!["tools".to_owned(), "--isolate".to_owned()];
            for path in copies.paths() {
                args.push("--plugin".into());
                args.push(path.display().to_string());
            }
            args
        }
        Mode::Installed => {
            write_registry(home.path(), template, &copies);
            vec!["tools".into()]
        }
    };
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let listed = xcsh_output(xcsh, &argv, home.path())
        .lines()
        .filter(|line| line.trim_start().starts_with("noop_"))
        .count();
    assert_eq!(listed, count, "{mode:?}: every copy's noop is listed");
    Setup {
        home,
        _copies: copies,
        args,
    }
}

/// `xcsh tools` wall and peak RSS for each of [`COUNTS`] packs in `mode`.
/// The points' runs are interleaved (one run of each point per round), so
/// a change in the machine's load touches every point alike, the
/// no-pack baseline included.
fn series(xcsh: &Path, template: &PackRecord, mode: Mode) -> Series {
    let setups: Vec<Setup> = COUNTS
        .iter()
        .map(|&count| setup(xcsh, template, mode, count))
        .collect();
    let mut runs: Vec<Vec<Run>> = setups.iter().map(|_| Vec::new()).collect();
    for _ in 0..RUNS {
        for (setup, runs) in setups.iter().zip(&mut runs) {
            if mode == Mode::IsolatedFirst {
                let _ = std::fs::remove_dir_all(start_records(setup.home.path()));
            }
            runs.push(run_xcsh(xcsh, &setup.args, setup.home.path()));
        }
    }
    COUNTS
        .iter()
        .zip(runs)
        .map(|(&count, runs)| {
            (
                count,
                median(runs.iter().map(|r| r.wall_ns).collect()),
                median(runs.iter().map(|r| r.rss_kib).collect()),
            )
        })
        .collect()
}

/// The first call of an installed pack and a call of the opened pack, in
/// nanoseconds (medians), in-process through the agent library.
fn first_call(xcsh_exe: &Path) -> (f64, f64) {
    use xcsh_agent::Agent;
    use xcsh_core::ToolCall;
    use xcsh_sources::{Discovery, RunPolicy};
    let pack = bench_pack_path();
    let mut first = Vec::new();
    let mut opened = Vec::new();
    for _ in 0..FIRST_CALLS {
        let home = tempfile::tempdir().expect("home");
        let copies = PackCopies::named_for_the_pack(pack, 1);
        let copy = &copies.paths()[0];
        // A real `xcsh pack add` of this very copy.
        xcsh_output(
            xcsh_exe,
            &["pack", "add", copy.to_str().expect("UTF-8 path")],
            home.path(),
        );
        let registry = registry_path(home.path());
        let work = tempfile::tempdir().expect("work");
        let agent = Agent::start_with_installed(
            work.path(),
            Discovery::default(),
            &RunPolicy::default(),
            vec![xcsh_sources::UsedRegistry::user(registry).expect("read the registry")],
        )
        .expect("start the agent");
        let noop = agent
            .tool_names()
            .into_iter()
            .find(|name| name.starts_with("noop_"))
            .expect("the installed noop");
        let call = ToolCall::new("bench", noop, json!({}));
        let start = Instant::now();
        let result = agent.session.execute(&call);
        first.push(start.elapsed().as_nanos() as f64);
        assert!(!result.is_error, "{result:?}");
        for _ in 0..OPENED_CALLS {
            let start = Instant::now();
            let result = agent.session.execute(&call);
            opened.push(start.elapsed().as_nanos() as f64);
            assert!(!result.is_error, "{result:?}");
        }
    }
    (median(first), median(opened))
}

/// Draws wall time and peak RSS against the pack count, one line per mode.
fn chart(path: &Path, points: &[(Mode, Series)]) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1000, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(500);
    let colors = [BLUE, GREEN, RED, MAGENTA];
    for (area, title, unit, pick) in [
        (&left, "xcsh tools: wall time", "ms", 0usize),
        (&right, "xcsh tools: peak RSS", "MiB", 1usize),
    ] {
        let value = |&(_, wall, rss): &(usize, f64, f64)| {
            if pick == 0 { wall / 1e6 } else { rss / 1024.0 }
        };
        let max = points
            .iter()
            .flat_map(|(_, p)| p.iter().map(value))
            .fold(0.0, f64::max)
            * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(52)
            .build_cartesian_2d(0usize..100usize, 0.0..max)?;
        chart.configure_mesh().x_desc("packs").y_desc(unit).draw()?;
        for ((mode, series), color) in points.iter().zip(colors) {
            chart
                .draw_series(LineSeries::new(
                    series.iter().map(|p| (p.0, value(p))),
                    color.stroke_width(2),
                ))?
                .label(mode.label())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
            chart.draw_series(
                series
                    .iter()
                    .map(|p| Circle::new((p.0, value(p)), 3, color.filled())),
            )?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if serve_middleman(&args) {
        return;
    }
    if !selected("installed", &args) {
        return;
    }
    let Some(xcsh) = xcsh_binary() else {
        save_section(
            "7-installed",
            "### 7. Installed packs\n\nNot measured: the `xcsh` binary did not build.\n",
        );
        return;
    };
    // One real record to copy from.
    let template = {
        let home = tempfile::tempdir().expect("home");
        let copies = PackCopies::named_for_the_pack(bench_pack_path(), 1);
        xcsh_output(
            &xcsh,
            &["pack", "add", copies.paths()[0].to_str().expect("UTF-8")],
            home.path(),
        );
        Registry::load(&registry_path(home.path()))
            .expect("the registry")
            .packs
            .into_values()
            .next()
            .expect("one pack")
    };

    let mut points = Vec::new();
    for mode in Mode::ALL {
        let series = series(&xcsh, &template, mode);
        for &(count, wall, rss) in &series {
            println!(
                "installed/{} {count} packs: wall {}, peak RSS {:.1} MiB",
                mode.label(),
                duration(wall),
                rss / 1024.0
            );
        }
        points.push((mode, series));
    }
    let (first, opened) = first_call(&xcsh);
    println!(
        "installed/first call {} against a call of the opened pack {}",
        duration(first),
        duration(opened)
    );

    let svg = Path::new(env!("CARGO_MANIFEST_DIR")).join("../BENCHMARKS-installed.svg");
    if let Err(error) = chart(&svg, &points) {
        eprintln!("could not draw {}: {error}", svg.display());
    }

    let mut table = String::from(
        "| packs | mode | wall (median) | × no packs | peak RSS (median) | × no packs |\n\
         | ---: | --- | ---: | ---: | ---: | ---: |\n",
    );
    for (mode, series) in &points {
        let (_, base_wall, base_rss) = series[0];
        for &(count, wall, rss) in series {
            table.push_str(&format!(
                "| {count} | {} | {} | {:.2}× | {:.1} MiB | {:.2}× |\n",
                mode.label(),
                duration(wall),
                wall / base_wall,
                rss / 1024.0,
                rss / base_rss
            ));
        }
    }
    let installed = &points[1].1;
    let (_, base_wall, base_rss) = installed[0];
    let (_, wall, rss) = installed[installed.len() - 1];
    let (wall_ratio, rss_ratio) = (wall / base_wall, rss / base_rss);
    let verdict = if wall_ratio <= TARGET_RATIO && rss_ratio <= TARGET_RATIO {
        "met"
    } else {
        "**missed**"
    };
    let isolated_ratio = |series: &Series| {
        let (_, base, _) = series[0];
        let (_, wall, _) = series[series.len() - 1];
        wall / base
    };
    let (recorded, first_start) = (isolated_ratio(&points[2].1), isolated_ratio(&points[3].1));
    let isolated_verdict = if recorded <= ISOLATED_TARGET_RATIO {
        "met"
    } else {
        "**missed**"
    };
    save_section(
        "7-installed",
        &format!(
            "### 7. Installed packs\n\n`xcsh tools` as a whole process with N packs, median of \
             {RUNS} runs after a warm-up run, each mode against its own no-pack run, the \
             points' runs interleaved round by round (chart: [`BENCHMARKS-installed.svg`](BENCHMARKS-installed.svg)). \
             Peak RSS is the largest single process's (`wait4`): for isolated packs, each pack \
             process has its own besides the agent's.\n\n{table}\n\
             **Target**: 100 installed packs within {TARGET_RATIO}× of none on wall time and \
             peak RSS: {wall_ratio:.2}× and {rss_ratio:.2}×, {verdict}. 100 isolated packs \
             within {ISOLATED_TARGET_RATIO}× of none on wall time: {recorded:.2}× offered from \
             their start records, {isolated_verdict} ({first_start:.2}× at the first start-up \
             in a directory, which starts every pack's process, in parallel).\n\n\
             | case | median | baseline (median) | × |\n| --- | ---: | ---: | ---: |\n\
             | first call of an installed pack (stat, SHA-256, open, factory, call; {FIRST_CALLS} \
             packs) | {} | a call of the opened pack ({OPENED_CALLS} after each first call): {} | \
             {:.0}× |\n",
            duration(first),
            duration(opened),
            first / opened
        ),
    );
}
