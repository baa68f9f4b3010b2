//! The library handed over, not reopened: the agent opens and checks an
//! isolated pack's file once and its process maps a sealed copy of those
//! bytes, so a file swapped at the path, or rewritten in place, after the
//! check never runs; nor does a restart after a crash reopen anything.

use std::fs;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tempfile::TempDir;
use xcsh_core::{Session, ToolCall};
use xcsh_isolate::{IsolatedTool, IsolationPolicy, SessionLoader};
use xcsh_loader::{LoadError, TrustPolicy, sha256_hex};

use crate::support::{XCSH, pack_path};

fn policy() -> IsolationPolicy {
    IsolationPolicy {
        all: true,
        host_exe: Some(XCSH.into()),
        ..IsolationPolicy::default()
    }
}

/// A thread swaps the pinned pack and another back and forth at the pinned
/// path while isolated processes start from it, up to 200 times (or for
/// 60 s at most): each start either runs the pinned pack or is
/// refused by the pin, never the other library (whose process would say
/// it is `fixture-conflict-b`, which is refused too, but only after its
/// code ran: that fails the test).
#[test]
fn swapping_an_isolated_pack_while_it_starts_never_runs_an_unpinned_library() {
    const ROUNDS: usize = 200;
    const LIMIT: Duration = Duration::from_secs(60);
    let dir = TempDir::new().unwrap();
    let good = dir.path().join("good");
    fs::copy(pack_path("fixture-conflict-a"), &good).unwrap();
    let evil = dir.path().join("evil");
    fs::copy(pack_path("fixture-conflict-b"), &evil).unwrap();
    let good_hash = sha256_hex(&fs::read(&good).unwrap());
    let isolation = policy();
    let started = Instant::now();

    let (mut ran, mut refused, mut rounds) = (0, 0, 0);
    while rounds < ROUNDS && started.elapsed() < LIMIT {
        let round_dir = dir.path().join(rounds.to_string());
        fs::create_dir(&round_dir).unwrap();
        // Named for the pinned pack, as the agent's identity check wants.
        let pinned = round_dir.join("libfixture_conflict_a.so");
        let other = round_dir.join("other");
        let spare = round_dir.join("spare");
        fs::hard_link(&good, &pinned).unwrap();
        fs::hard_link(&evil, &other).unwrap();
        let trust = TrustPolicy::new().with_allow_list([(pinned.clone(), good_hash.clone())]);
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (stop, pinned, other) = (Arc::clone(&stop), pinned.clone(), other.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    fs::rename(&pinned, &spare).unwrap();
                    fs::rename(&other, &pinned).unwrap();
                    fs::rename(&spare, &other).unwrap();
                }
            })
        };
        let session = Session::new(&round_dir);
        let loader = SessionLoader {
            trust: &trust,
            isolation: &isolation,
            timeout: Some(Duration::from_secs(30)),
            first_seen: None,
        };
        let outcome = loader.start(
            &round_dir,
            Arc::downgrade(session.store()),
            &pinned,
            &Default::default(),
        );
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();
        match outcome {
            Ok((pack, tools)) => {
                assert_eq!(pack.name(), "fixture-conflict-a", "round {rounds}");
                let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                assert_eq!(names, ["shared_name"], "round {rounds}");
                ran += 1;
            }
            Err(error) => {
                assert!(
                    matches!(
                        error,
                        LoadError::HashMismatch { .. } | LoadError::Unreadable(_)
                    ),
                    "round {rounds}: {error}"
                );
                refused += 1;
            }
        }
        rounds += 1;
    }
    assert!(rounds >= 20, "only {rounds} rounds in {LIMIT:?}");
    // Both outcomes happened, so the swap did race the check.
    assert!(ran > 0 && refused > 0, "ran {ran}, refused {refused}");
}

/// The pinned file rewritten in place, and another library renamed over
/// it, after the agent checked it: the crash restart maps the checked
/// bytes again, so the same pack answers.
#[test]
fn a_restart_after_a_crash_runs_the_checked_bytes_not_the_file_now_there() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("libfixture_crashy.so");
    fs::copy(pack_path("fixture-crashy"), &path).unwrap();
    let trust =
        TrustPolicy::new().with_allow_list([(path.clone(), sha256_hex(&fs::read(&path).unwrap()))]);
    let isolation = policy();
    let session = Session::new(dir.path());
    let loader = SessionLoader {
        trust: &trust,
        isolation: &isolation,
        timeout: Some(Duration::from_secs(30)),
        first_seen: None,
    };
    let (pack, specs) = loader
        .start(
            dir.path(),
            Arc::downgrade(session.store()),
            &path,
            &Default::default(),
        )
        .unwrap();
    for spec in specs {
        let tool = IsolatedTool::new(spec, Arc::clone(&pack)).unwrap();
        session.register_tool(Arc::new(tool)).unwrap();
    }
    let call = |tool: &str| session.execute(&ToolCall::new("c", tool, json!({})));
    assert_eq!(call("crashy_ok").text(), "still here");
    // Rewritten in place (the inode the agent opened), then replaced.
    fs::write(&path, b"not a library any more").unwrap();
    let swapped = dir.path().join("swapped");
    fs::copy(pack_path("fixture-conflict-b"), &swapped).unwrap();
    fs::rename(&swapped, &path).unwrap();
    let crashed = call("crashy_segfault");
    assert!(crashed.is_error, "{}", crashed.text());
    let again = call("crashy_ok");
    assert!(!again.is_error, "{}", again.text());
    assert_eq!(again.text(), "still here", "the checked pack restarted");
    assert_eq!(pack.name(), "fixture-crashy");
    assert_eq!(pack.path(), fs::canonicalize(&path).unwrap());
}
