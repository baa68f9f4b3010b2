//! The cost of undo snapshots: one apply in a 10,000-file tree with and
//! without the observer (1 file changed, 1,000 changed), and one undo, each
//! the median of several runs, the baseline measured in the same run.
//!
//! `cargo bench -p xcsh-undo --bench apply` prints a Markdown table.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use xcsh_core::{ApplyObserver, PendingAction, Session, ToolCall, ToolOutput};
use xcsh_undo::{Limits, Store, UndoObserver};

const FILES: usize = 10_000;
const RUNS: usize = 15;

fn tree(dir: &Path) {
    for n in 0..FILES {
        let sub = dir.join(format!("d{:02}", n % 100));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(
            sub.join(format!("f{n}.txt")),
            format!("file {n}\n").repeat(20),
        )
        .unwrap();
    }
}

/// One resolve apply that rewrites `changed` files (a new content each run).
fn apply(session: &Session, changed: usize, run: usize) -> Duration {
    let cwd = session.cwd().to_owned();
    let action = PendingAction::try_new("bench", move |_| {
        for n in 0..changed {
            let path = cwd.join(format!("d{:02}/f{n}.txt", n % 100));
            std::fs::write(path, format!("run {run}\n")).unwrap();
        }
        Ok(ToolOutput::text("done"))
    })
    .unwrap();
    session.store().push(action);
    let call = ToolCall::new(
        "c",
        "resolve",
        json!({"action": "apply", "reason": "bench"}),
    );
    let start = Instant::now();
    let result = session.execute(&call);
    let elapsed = start.elapsed();
    assert!(!result.is_error);
    elapsed
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn main() {
    let temp = tempfile::tempdir().unwrap();
    let (root, work) = (temp.path().join("state"), temp.path().join("work"));
    std::fs::create_dir_all(&work).unwrap();
    tree(&work);
    let plain = Session::new(&work);
    let watched = Session::new(&work);
    watched.set_apply_observer(Arc::new(UndoObserver::new(&root, &work, Limits::default())));
    // The first snapshot of a directory reads every file once.
    let start = Instant::now();
    apply(&watched, 1, 0);
    let first = start.elapsed();
    println!("| case ({FILES} files) | without snapshots | with snapshots | extra | ratio |");
    println!("|---|---|---|---|---|");
    // `XCSH_UNDO_BENCH_CHANGED=1` measures one case only (for profiling).
    let cases: Vec<usize> = std::env::var("XCSH_UNDO_BENCH_CHANGED")
        .ok()
        .and_then(|n| n.parse().ok())
        .map_or_else(|| vec![1, 1_000], |n| vec![n]);
    for changed in cases {
        let mut base = Vec::new();
        let mut with = Vec::new();
        for run in 1..=RUNS {
            base.push(apply(&plain, changed, run * 2));
            with.push(apply(&watched, changed, run * 2 + 1));
        }
        let (base, with) = (median(base), median(with));
        println!(
            "| apply, {changed} file{} changed | {} | {} | {} | {:.1}× |",
            if changed == 1 { "" } else { "s" },
            ms(base),
            ms(with),
            ms(with.saturating_sub(base)),
            with.as_secs_f64() / base.as_secs_f64()
        );
    }
    // A new session's first apply: the store knows the tree, but the
    // session has no watcher yet. Cold: the apply right after the push
    // compares every file's stamp itself. After the preview: the push
    // started that comparison in the background and it finished while
    // the model decided (here: waited for, untimed).
    for warm in [false, true] {
        let mut base = Vec::new();
        let mut with = Vec::new();
        for run in 1..=RUNS {
            base.push(apply(&plain, 1, run * 2));
            let fresh = Session::new(&work);
            let observer = Arc::new(UndoObserver::new(&root, &work, Limits::default()));
            fresh.set_apply_observer(Arc::clone(&observer) as Arc<dyn ApplyObserver>);
            if warm {
                observer.action_pushed();
                observer.settle();
            }
            with.push(apply(&fresh, 1, run * 2 + 1));
        }
        let (base, with) = (median(base), median(with));
        println!(
            "| apply, 1 file changed, first of a new session, {} | {} | {} | {} | {:.1}× |",
            if warm { "after the preview" } else { "cold" },
            ms(base),
            ms(with),
            ms(with.saturating_sub(base)),
            with.as_secs_f64() / base.as_secs_f64()
        );
    }
    let store = Store::open(&root, &work, Limits::default()).unwrap();
    let mut undos = Vec::new();
    for _ in 0..RUNS {
        apply(&watched, 1, 0);
        let start = Instant::now();
        let plan = store.plan(None).unwrap();
        store.undo(&plan, false, "bench").unwrap();
        undos.push(start.elapsed());
    }
    println!(
        "| undo of a 1-file apply (plan + restore) | | {} | | |",
        ms(median(undos))
    );
    println!(
        "\nFirst apply in the directory (every file read once): {}",
        ms(first)
    );
}
