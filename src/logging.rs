//! Log output on standard error through `tracing`.
//!
//! Lines read `warning: Failed to load tool pack …`, with the event's
//! fields after the message, control characters escaped
//! ([`xcsh_text::escape::line`]): one event, one line. `-v` raises the level;
//! `RUST_LOG`, when set, replaces it.

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// Installs the global subscriber. `quiet_level` is the level without `-v`
/// (`warn` normally); each `-v` goes one level further.
pub fn init(verbose: u8, quiet_level: Level) {
    let levels = [
        Level::ERROR,
        Level::WARN,
        Level::INFO,
        Level::DEBUG,
        Level::TRACE,
    ];
    let base = levels.iter().position(|l| *l == quiet_level).unwrap_or(1);
    let level = levels[(base + usize::from(verbose)).min(levels.len() - 1)];
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(level.as_str().to_ascii_lowercase()));
    // A second init (unit tests) keeps the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .event_format(Plain)
        .try_init();
}

/// `level: message field=value`.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let level = match *event.metadata().level() {
            Level::ERROR => "error",
            Level::WARN => "warning",
            Level::INFO => "info",
            Level::DEBUG => "debug",
            Level::TRACE => "trace",
        };
        // Messages quote pack-supplied text (names, paths, errors): format
        // them apart, then escape, so each event stays one harmless line.
        let mut fields = String::new();
        ctx.format_fields(Writer::new(&mut fields), event)?;
        writeln!(writer, "{level}: {}", xcsh_text::escape::line(&fields))
    }
}
