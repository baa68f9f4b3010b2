//! Which call a pack's log line belongs to: the tool call the pack's own
//! code is running on this thread, if any. A line written there goes to
//! that call's [`ToolContext::log`] as well as to `tracing`; a line written
//! anywhere else (the factory, a thread the pack started, another pack's
//! call) goes to `tracing` only.

use std::cell::RefCell;
use std::sync::Arc;

use xcsh_core::{LogLevel, ToolContext};

thread_local! {
    /// The pack and context of the tool call running on this thread.
    static CURRENT: RefCell<Option<(Arc<str>, ToolContext)>> = const { RefCell::new(None) };
}

/// Attributes this thread's log lines from `pack` to the call of `context`
/// until dropped (nesting restores the outer call).
#[derive(Debug)]
#[must_use = "the call takes log lines only while the guard lives"]
pub(crate) struct Logging {
    previous: Option<(Arc<str>, ToolContext)>,
}

/// Records the call of `context`, by `pack`, as this thread's running call.
pub(crate) fn enter(pack: &Arc<str>, context: &ToolContext) -> Logging {
    let current = Some((Arc::clone(pack), context.clone()));
    Logging {
        previous: CURRENT.with(|slot| slot.replace(current)),
    }
}

impl Drop for Logging {
    fn drop(&mut self) {
        let previous = self.previous.take();
        // `try_with`: during thread teardown the slot may be gone already.
        let _ = CURRENT.try_with(|slot| slot.replace(previous));
    }
}

/// Hands a line `pack` wrote to the call running on this thread, if it is
/// one of `pack`'s calls. True if a call took it.
pub(crate) fn forward(pack: &str, level: LogLevel, message: &str) -> bool {
    // Cloned out so the sink runs without the slot borrowed.
    let running = CURRENT
        .try_with(|slot| slot.borrow().clone())
        .ok()
        .flatten()
        .filter(|(running, _)| &**running == pack);
    match running {
        Some((_, context)) => {
            context.log(level, pack, message);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    type Seen = Arc<Mutex<Vec<(LogLevel, String, String)>>>;

    fn watched(call: &str) -> (ToolContext, Seen) {
        let seen: Seen = Arc::default();
        let sink = Arc::clone(&seen);
        let context = ToolContext::new(call, "/").with_log(Arc::new(move |level, logger, text| {
            sink.lock()
                .unwrap()
                .push((level, logger.to_owned(), text.to_owned()));
        }));
        (context, seen)
    }

    fn line(level: LogLevel, logger: &str, text: &str) -> (LogLevel, String, String) {
        (level, logger.to_owned(), text.to_owned())
    }

    #[test]
    fn a_line_during_the_packs_call_reaches_that_call_only() {
        let pack: Arc<str> = "alpha".into();
        let (context, seen) = watched("c1");
        assert!(!forward("alpha", LogLevel::Info, "before"));
        {
            let _in_call = enter(&pack, &context);
            assert!(forward("alpha", LogLevel::Info, "during"));
            assert!(!forward("beta", LogLevel::Info, "another pack"));
            let helper = std::thread::spawn(|| forward("alpha", LogLevel::Info, "helper"));
            assert!(!helper.join().unwrap());
        }
        assert!(!forward("alpha", LogLevel::Info, "after"));
        assert_eq!(
            *seen.lock().unwrap(),
            [line(LogLevel::Info, "alpha", "during")]
        );
    }

    #[test]
    fn nested_calls_restore_the_outer_one() {
        let pack: Arc<str> = "alpha".into();
        let (outer, outer_seen) = watched("outer");
        let (inner, inner_seen) = watched("inner");
        let _outer = enter(&pack, &outer);
        {
            let _inner = enter(&pack, &inner);
            forward("alpha", LogLevel::Debug, "in inner");
        }
        forward("alpha", LogLevel::Error, "in outer");
        assert_eq!(
            *inner_seen.lock().unwrap(),
            [line(LogLevel::Debug, "alpha", "in inner")]
        );
        assert_eq!(
            *outer_seen.lock().unwrap(),
            [line(LogLevel::Error, "alpha", "in outer")]
        );
    }
}
