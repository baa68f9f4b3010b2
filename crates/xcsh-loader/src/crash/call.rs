//! What the current thread is doing in pack code: the slot the crash
//! handler reads ([`enter`] fills it), and the pack's name as a report
//! prints it ([`Origin`]).

use std::cell::Cell;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// Said after every crash report; one constant, so the hint changes in one
/// place.
pub const ISOLATION_HINT: &str = "(a pack can run isolated in its own process: --isolate)";

/// A loaded pack as a crash report names it, formatted once at load:
/// `tool pack NAME VERSION (PATH)`, control characters shown as `?`.
#[derive(Debug)]
pub(crate) struct Origin {
    pub(super) text: String,
}

impl Origin {
    /// The pack `name` `version` loaded from `path`.
    pub(crate) fn new(name: &str, version: &str, path: &Path) -> Arc<Self> {
        let mut text = String::new();
        let _ = write!(text, "tool pack {name} {version} ({})", path.display());
        Arc::new(Self {
            text: printable(&text),
        })
    }
}

/// `s` with every control character replaced by `?`, so a name or label
/// cannot rewrite the terminal from a crash report.
pub(crate) fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// What the current thread is doing in pack code.
#[derive(Debug)]
pub(crate) struct Call<'a> {
    pub(super) origin: &'a Origin,
    /// `running tool `, `applying pending action `, ….
    pub(super) doing: &'static str,
    /// The tool's name or the action's (already printable) label.
    pub(super) subject: &'a str,
}

impl<'a> Call<'a> {
    /// Running tool `name` (a valid tool name: nothing to escape).
    pub(crate) fn tool(origin: &'a Origin, name: &'a str) -> Self {
        Self {
            origin,
            doing: "running tool ",
            subject: name,
        }
    }

    /// Applying the action with (printable) label `label`.
    pub(crate) fn apply(origin: &'a Origin, label: &'a str) -> Self {
        Self {
            origin,
            doing: "applying pending action ",
            subject: label,
        }
    }

    /// Discarding the action with (printable) label `label`.
    pub(crate) fn reject(origin: &'a Origin, label: &'a str) -> Self {
        Self {
            origin,
            doing: "discarding pending action ",
            subject: label,
        }
    }

    /// Creating the pack's tools.
    pub(crate) fn factory(origin: &'a Origin) -> Self {
        Self {
            origin,
            doing: "creating its tools",
            subject: "",
        }
    }
}

thread_local! {
    /// The pack call this thread is in, or null. Const-initialised and
    /// without a destructor, so reading it never allocates or registers
    /// anything: safe from a signal handler.
    pub(super) static CURRENT: Cell<*const Call<'static>> = const { Cell::new(std::ptr::null()) };
}

/// Marks the thread as in pack code until dropped (nesting restores the
/// outer call).
#[derive(Debug)]
#[must_use = "the call is recorded only while the guard lives"]
pub(crate) struct Entered {
    previous: *const Call<'static>,
}

/// Records `call` as this thread's current pack call.
pub(crate) fn enter(call: &Call<'_>) -> Entered {
    let pointer = std::ptr::from_ref(call).cast::<Call<'static>>();
    Entered {
        previous: CURRENT.with(|current| current.replace(pointer)),
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|current| current.set(self.previous));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_names_the_pack_with_controls_made_harmless() {
        let origin = Origin::new("evil\u{1b}[2J", "1.0\n", Path::new("/p/lib.so"));
        assert_eq!(origin.text, "tool pack evil?[2J 1.0? (/p/lib.so)");
    }

    #[test]
    fn entering_nests_and_restores() {
        let origin = Origin::new("p", "1", Path::new("/p"));
        let outer = Call::tool(&origin, "outer");
        let inner = Call::apply(&origin, "inner");
        let current = || CURRENT.with(Cell::get);
        assert!(current().is_null());
        {
            let _outer = enter(&outer);
            assert_eq!(current(), std::ptr::from_ref(&outer).cast());
            {
                let _inner = enter(&inner);
                assert_eq!(current(), std::ptr::from_ref(&inner).cast());
            }
            assert_eq!(current(), std::ptr::from_ref(&outer).cast());
        }
        assert!(current().is_null());
    }
}
