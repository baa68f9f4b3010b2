//! The first use of an installed isolated pack while its file is being
//! swapped for another library: the agent hashes the sealed copy it hands
//! to the pack's process, so each first use either runs the added pack or
//! is refused as changed, never the other library (whose process would
//! name itself `fixture-conflict-b` and be refused only after its code
//! ran: that fails the test). Up to 60 rounds, 30 s at most.

use std::fs;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{ok, results};
use crate::support::{Env, canonical, copy_pack, pack_path};

#[test]
fn swapping_an_installed_isolated_pack_at_its_first_use_never_runs_another_library() {
    const ROUNDS: usize = 60;
    const LIMIT: Duration = Duration::from_secs(30);
    let env = Env::new();
    let dir = env.work().join("packs");
    let pinned = canonical(&copy_pack("fixture-conflict-a", &dir));
    let good = env.work().join("good");
    fs::copy(&pinned, &good).unwrap();
    let other = env.work().join("other");
    fs::copy(pack_path("fixture-conflict-b"), &other).unwrap();
    let spare = env.work().join("spare");
    let call = "{\"tool\": \"shared_name\"}\n";
    let started = Instant::now();
    let (mut ran, mut refused, mut rounds) = (0, 0, 0);
    while rounds < ROUNDS && started.elapsed() < LIMIT {
        // Each round adds the good file again (a refusal marks it failed).
        fs::copy(&good, &pinned).unwrap();
        fs::copy(pack_path("fixture-conflict-b"), &other).unwrap();
        ok(env.run(
            &[
                "pack",
                "add",
                "--isolate",
                "--replace",
                pinned.to_str().unwrap(),
            ],
            "",
        ));
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (stop, pinned, other, spare) = (
                Arc::clone(&stop),
                pinned.clone(),
                other.clone(),
                spare.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    fs::rename(&pinned, &spare).unwrap();
                    fs::rename(&other, &pinned).unwrap();
                    fs::rename(&spare, &other).unwrap();
                }
            })
        };
        let output = ok(env.run(&["run"], call));
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        let (is_error, text) = results(&output).remove(0);
        if is_error {
            // Refused by the file's identity or hash, or as missing or
            // unreadable mid-swap: never by what the other library's process said.
            let refusal = "Tool shared_name is unavailable: installed pack fixture-conflict-a failed to open: ";
            assert!(
                text.starts_with(refusal)
                    && [
                        "changed since it was added",
                        "cannot read ",
                        " is missing; "
                    ]
                    .iter()
                    .any(|why| text.contains(why)),
                "round {rounds}: {text}"
            );
            refused += 1;
        } else {
            assert_eq!(text, "from conflict-a", "round {rounds}");
            ran += 1;
        }
        rounds += 1;
    }
    assert!(rounds >= 20, "only {rounds} rounds in {LIMIT:?}");
    eprintln!("{rounds} rounds: ran {ran}, refused {refused}");
    assert!(ran > 0 && refused > 0, "ran {ran}, refused {refused}");
}
