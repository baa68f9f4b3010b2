//! Where a session's tool packs and policies come from: the command line's
//! pack flags, `XCSH_PLUGIN_PATH`, the user's and a trusted project's
//! config files, the default pack directories, the installed packs'
//! registries, and the trust the user gave project directories.
//!
//! - [`flags`]: the pack flags every session-starting subcommand shares;
//! - [`source`], [`discovery`], [`warning`]: the places to look, the library
//!   files they name, and why a place gave none;
//! - [`config`]: the config file (`config.toml`); [`model_config`] its
//!   `[model]` table and [`model_flags`] the flags over it (`xcsh agent`);
//!   [`undo_config`]: its `[undo]` table;
//! - [`project`] and [`trust_store`]: a working directory's `.xcsh` files
//!   and which of them the user trusts (`xcsh trust`);
//! - [`registry`], [`schema`] and [`registry_file`]: the installed packs'
//!   registries (`packs.json`), the user's and a trusted project's;
//! - [`collect`]: all of it, in load order, with the settings read;
//! - [`run_policy`]: how a session runs pack code, from those settings;
//! - [`private_file`]: files only the user can read, written atomically;
//!   [`private_dir`]: the directory of the user's secrets (journal key,
//!   MCP token), which no isolated pack can read;
//!   [`file_lock`]: one writer at a time for each record.
//!
//! It reads files and judges them; it opens no library and starts no
//! session (that is `xcsh-agent`'s job), and it depends on no front end.
//! Tool-pack authors depend on `xcsh-plugin-api`, not on this crate.
#![forbid(unsafe_code)]

pub mod collect;
pub mod config;
pub mod discovery;
pub mod file_lock;
pub mod flags;
pub mod model_config;
pub mod model_flags;
pub mod pack_tables;
pub mod private_dir;
pub mod private_file;
pub mod project;
pub mod registry;
pub mod registry_file;
pub mod run_policy;
pub mod schema;
pub mod source;
pub mod trust_store;
pub mod undo_config;
pub mod warning;

pub use collect::{
    CACHE_DIR_ENV, CONFIG_DIR_ENV, Collected, DATA_DIR_ENV, ProjectSettings, Settings, UserDirs,
    collect,
};
pub use discovery::{Discovery, discover};
pub use flags::PackArgs;
pub use model_config::ModelConfig;
pub use model_flags::ModelArgs;
pub use registry::{PackRecord, REGISTRY_FILE_NAME, Registry};
pub use registry_file::{Registries, RegistryFile, Scope, UsedRegistry};
pub use run_policy::{DEFAULT_TOOL_TIMEOUT, RunPolicy};
pub use source::{Expect, Origin, PLUGIN_PATH_ENV, Source};
pub use undo_config::UndoConfig;
pub use warning::{Problem, SourceWarning};
