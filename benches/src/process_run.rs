//! Whole-process measurements: wall time and peak RSS of one run of a
//! program, taken by a middleman process (a copy of the benchmark itself,
//! started with [`MIDDLEMAN_ARG`]) so the peak RSS of its only child is the
//! measured program's.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// The first argument that makes a benchmark binary act as the middleman:
/// `BENCH __measure PROGRAM ARGS…`.
pub const MIDDLEMAN_ARG: &str = "__measure";

/// One measured run: wall time in nanoseconds, peak RSS in KiB, CPU time.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    /// Wall time from spawn to exit, in nanoseconds.
    pub wall_ns: f64,
    /// Peak resident set size, in KiB.
    pub rss_kib: f64,
    /// CPU time (user and system) of the program and every process it
    /// waited for (an isolated pack's included), in nanoseconds.
    pub cpu_ns: f64,
}

/// The middleman's work: runs `program args…` once (no input, output
/// discarded) and prints `wall_ns rss_kib cpu_ns` on standard output.
///
/// # Panics
///
/// The program cannot start or fails.
#[cfg(unix)]
pub fn measure(program: &str, args: &[String]) {
    use nix::sys::resource::{UsageWho, getrusage};
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run the measured program");
    let wall = start.elapsed();
    assert!(status.success(), "{program} failed: {status}");
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN).expect("getrusage");
    // Linux reports ru_maxrss in KiB, macOS in bytes.
    let rss_kib = if cfg!(target_vendor = "apple") {
        usage.max_rss() / 1024
    } else {
        usage.max_rss()
    };
    let nanos = |t: nix::sys::time::TimeVal| {
        i128::from(t.tv_sec()) * 1_000_000_000 + i128::from(t.tv_usec()) * 1_000
    };
    let cpu_ns = nanos(usage.user_time()) + nanos(usage.system_time());
    println!("{} {rss_kib} {cpu_ns}", wall.as_nanos());
}

/// Peak RSS is read with `getrusage`: Unix only.
///
/// # Panics
///
/// Always.
#[cfg(not(unix))]
pub fn measure(_program: &str, _args: &[String]) {
    panic!("whole-process benchmarks measure peak RSS with getrusage: Unix only");
}

/// Runs `middleman` (a command already set up as `BENCH __measure PROGRAM
/// ARGS…`, with its environment) and reads the run it reports.
///
/// # Panics
///
/// The middleman fails or prints something else.
pub fn run_through(middleman: &mut Command) -> Run {
    let output = middleman
        .stderr(Stdio::inherit())
        .output()
        .expect("run the measuring middleman");
    assert!(
        output.status.success(),
        "measuring failed: {}",
        output.status
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>());
    match (fields.next(), fields.next(), fields.next()) {
        (Some(Ok(wall_ns)), Some(Ok(rss_kib)), Some(Ok(cpu_ns))) => Run {
            wall_ns,
            rss_kib,
            cpu_ns,
        },
        _ => panic!("unexpected middleman output: {text:?}"),
    }
}

/// Gives `command` the scratch home `home`: its working directory, `HOME`
/// and the XDG config, data and cache directories under it, and none of the
/// variables that would add packs, isolate them or change the logging.
pub fn in_home(command: &mut Command, home: &Path) {
    command
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env_remove("XCSH_PLUGIN_PATH")
        .env_remove("XCSH_ISOLATE")
        .env_remove("RUST_LOG");
}

/// `xcsh tools --plugin-dir DIR` in the scratch home `home`: the start-up
/// the start-up and first-seen benchmarks time (see [`run_xcsh`]).
///
/// # Panics
///
/// As [`run_through`].
pub fn run_tools_with_plugin_dir(xcsh: &Path, dir: &Path, home: &Path) -> Run {
    run_xcsh(
        xcsh,
        &[
            OsStr::new("tools"),
            OsStr::new("--plugin-dir"),
            dir.as_os_str(),
        ],
        home,
    )
}

/// Runs `xcsh args…` in the scratch home `home` (see [`in_home`]) through
/// the middleman, a copy of the calling benchmark.
///
/// # Panics
///
/// As [`run_through`].
pub fn run_xcsh<S: AsRef<OsStr>>(xcsh: &Path, args: &[S], home: &Path) -> Run {
    let me = std::env::current_exe().expect("this benchmark's path");
    let mut command = Command::new(me);
    command.arg(MIDDLEMAN_ARG).arg(xcsh).args(args);
    in_home(&mut command, home);
    run_through(&mut command)
}

/// The middle value of `values` (the upper one of an even count).
///
/// # Panics
///
/// `values` is empty.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Whether a benchmark binary named `bench` should run: `cargo bench --
/// NAME` passes NAME to every benchmark, so one runs only when it is named
/// (or nothing is). `args` are the process's arguments, program first.
pub fn selected(bench: &str, args: &[String]) -> bool {
    let mut filters = args
        .iter()
        .skip(1)
        .filter(|arg| !arg.starts_with("--"))
        .peekable();
    filters.peek().is_none() || filters.any(|filter| bench.contains(filter.as_str()))
}

/// Acts as the middleman when the process was started as one (see
/// [`MIDDLEMAN_ARG`]): measures and returns true, and the caller returns.
pub fn serve_middleman(args: &[String]) -> bool {
    if args.get(1).map(String::as_str) != Some(MIDDLEMAN_ARG) {
        return false;
    }
    measure(&args[2], &args[3..]);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|arg| (*arg).to_owned()).collect()
    }

    #[test]
    fn a_benchmark_runs_when_named_or_when_nothing_is() {
        assert!(selected("startup", &args(&["bench", "--bench"])));
        assert!(selected("startup", &args(&["bench", "--bench", "start"])));
        assert!(!selected(
            "startup",
            &args(&["bench", "--bench", "installed"])
        ));
    }

    #[test]
    fn the_median_is_the_middle_value() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
    }
}
