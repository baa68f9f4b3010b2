//! Integration tests over real, built tool packs. The packs are built once
//! per run by `xcsh_test_support` with the same cargo and target directory.

mod batch_rename;
mod compat;
mod concurrency;
mod docs_example;
mod faults;
mod hostile;
mod loading;
mod panic_abort;
mod trust;
