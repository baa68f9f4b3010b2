//! `xcsh`, the coding-agent binary: loads native tool packs at start-up and
//! drives sessions over them, scripted (`xcsh run`) or interactive
//! (`xcsh repl`). `xcsh tools` shows what loaded and what did not.
//!
//! `main` only turns [`app::run`]'s result into an exit code and prints the
//! error chain once; everything else lives in one module per concern.
#![forbid(unsafe_code)]

mod agent;
mod app;
mod cli;
mod config;
mod logging;
mod render;
mod repl;
mod run;
mod script;
mod sources;
mod tools;

use std::process::ExitCode;

fn main() -> ExitCode {
    match app::run() {
        Ok(code) => code,
        Err(error) => {
            // `{:#}` prints the whole chain on one line: `a: b: c`.
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
