//! Project chores, run through cargo aliases (`.cargo/config.toml`).
//!
//! `cargo demo`: builds the `xcsh` binary and the batch-rename pack into this
//! run's target directory, lays out sample files in a temporary directory,
//! runs `xcsh run --pretty demo/rename.jsonl` there, and checks that the
//! session ended as docs/usage.md shows (see [`demo::check`]).
#![forbid(unsafe_code)]

mod demo;

use std::process::ExitCode;

use anyhow::bail;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("demo") => demo::run(),
        _ => bail!("usage: cargo demo   (xtask demo)"),
    }
}
