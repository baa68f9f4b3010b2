//! The `xcsh agent` model loop against model servers: the real local one
//! (llama-cpp-python serving SmolLM2-135M, see
//! `xcsh_test_support::ModelServer`) for Chat Completions, and a loopback
//! server that checks every request's shape for Anthropic Messages.

mod anthropic;
mod first_steer;
mod local_server;
mod support;
