//! `xcsh`, the coding-agent binary: loads native tool packs at start-up and
//! drives sessions over them, scripted (`xcsh run`) or interactive
//! (`xcsh repl`). `xcsh tools` shows what loaded and what did not.
//!
//! `main` only turns [`xcsh::app::run`]'s result into an exit code and
//! prints the error chain once; everything else lives in the library.
#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let code = match xcsh::app::run() {
        Ok(code) => code,
        Err(error) => {
            // `{:#}` prints the whole chain on one line: `a: b: c`; escaped,
            // as it may quote a path or a config file.
            eprintln!("error: {}", xcsh_text::escape::line(&format!("{error:#}")));
            ExitCode::FAILURE
        }
    };
    // The sessions are over and their packs' processes told to end: they
    // end together, each cleaning up after its sandbox (at most 2 s, after
    // which each is killed).
    xcsh_isolate::wait_for_all(std::time::Duration::from_secs(3));
    code
}
