//! Setting each figure beside its baseline: criterion's estimates are read
//! back after a group runs, and every benchmark writes one Markdown section
//! to `<target>/xcsh-bench/<name>.md` (and prints it). `benches/run.sh`
//! joins the sections into the report `BENCHMARKS.md` is made from.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::Value;

use crate::target_dir;

/// Where criterion keeps its results: `$CRITERION_HOME`, else
/// `<target>/criterion`.
fn criterion_dir() -> PathBuf {
    std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_dir().join("criterion"))
}

/// Criterion's headline estimate, in nanoseconds, for benchmark `id`
/// (`group/function/parameter`): the slope of the linear fit when it
/// sampled linearly, else the mean. `None` if the benchmark did not run
/// (e.g. filtered out).
pub fn estimate_ns(id: &str) -> Option<f64> {
    let path = criterion_dir().join(id).join("new").join("estimates.json");
    let estimates: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    ["slope", "mean"]
        .iter()
        .find_map(|key| estimates.get(key)?.get("point_estimate")?.as_f64())
}

/// A duration in nanoseconds, in the unit that reads best.
pub fn duration(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// What a figure is held to.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// `measured / baseline` at most this.
    Ratio(f64),
    /// `measured - baseline` at most this many nanoseconds.
    Overhead(f64),
    /// `measured` at most this many nanoseconds.
    Absolute(f64),
}

impl Target {
    fn describe(self) -> String {
        match self {
            Self::Ratio(r) => format!("≤ {r}× baseline"),
            Self::Overhead(ns) => format!("≤ {} over baseline", duration(ns)),
            Self::Absolute(ns) => format!("≤ {}", duration(ns)),
        }
    }

    fn met(self, measured: f64, baseline: f64) -> bool {
        match self {
            Self::Ratio(r) => measured <= r * baseline,
            Self::Overhead(ns) => measured - baseline <= ns,
            Self::Absolute(ns) => measured <= ns,
        }
    }
}

/// One line of a timing figure: a case, its baseline from the same run, and
/// the target it is held to (if any).
#[derive(Clone, Debug)]
pub struct Row {
    /// What was measured.
    pub case: String,
    /// Criterion id of the measurement.
    pub measured: String,
    /// Criterion id of the baseline.
    pub baseline: String,
    /// The target for this case.
    pub target: Option<Target>,
}

impl Row {
    /// A row comparing criterion ids `measured` and `baseline`.
    pub fn new(case: impl Into<String>, measured: &str, baseline: &str) -> Self {
        Self {
            case: case.into(),
            measured: measured.into(),
            baseline: baseline.into(),
            target: None,
        }
    }

    /// Holds the row to `target`.
    pub fn target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }
}

/// A Markdown table of `rows` (skipping rows whose benchmarks did not run):
/// time, baseline time, ratio, difference, target and verdict.
pub fn timing_table(rows: &[Row]) -> String {
    let mut table = String::from(
        "| case | time | baseline | ratio | over baseline | target | verdict |\n\
         | --- | ---: | ---: | ---: | ---: | --- | --- |\n",
    );
    for row in rows {
        let (Some(measured), Some(baseline)) =
            (estimate_ns(&row.measured), estimate_ns(&row.baseline))
        else {
            continue;
        };
        let (target, verdict) = match row.target {
            Some(t) => (
                t.describe(),
                if t.met(measured, baseline) {
                    "met"
                } else {
                    "**missed**"
                }
                .to_owned(),
            ),
            None => ("—".to_owned(), "—".to_owned()),
        };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {:.2}× | {} | {} | {} |",
            row.case,
            duration(measured),
            duration(baseline),
            measured / baseline,
            duration(measured - baseline),
            target,
            verdict,
        );
    }
    table
}

/// Prints a report section and saves it as `<target>/xcsh-bench/<name>.md`.
pub fn save_section(name: &str, markdown: &str) {
    println!("\n{markdown}");
    let dir = target_dir().join("xcsh-bench");
    if let Err(error) = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join(format!("{name}.md")), markdown))
    {
        eprintln!("could not save the {name} report section: {error}");
    }
}
