//! Why a tool pack failed to load.

use std::fmt::Display;
use std::path::PathBuf;

use abi_stable::library::{LibraryError, RootModuleError};
use abi_stable::type_layout::TypeLayout;

/// One way loading a pack can fail. `Display` is one line; the full detail
/// of layout mismatches goes to the debug log.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadError {
    /// The file does not exist or cannot be read.
    #[error("cannot read file: {0}")]
    Unreadable(String),
    /// The file, or its directory, can be written by other users.
    #[error(
        "refusing a pack writable by other users: {} (fix: chmod o-w {})",
        xcsh_safe_fs::name::shown(path),
        xcsh_safe_fs::name::shown(path)
    )]
    Untrusted {
        /// The file or directory others can write.
        path: PathBuf,
    },
    /// The file, or a directory above it, can be written by its group.
    #[error(
        "refusing a pack writable by its group: {} (fix: chmod g-w {})",
        xcsh_safe_fs::name::shown(path),
        xcsh_safe_fs::name::shown(path)
    )]
    GroupWritable {
        /// The file or directory its group can write.
        path: PathBuf,
    },
    /// The file, or a directory above it, belongs to neither root nor the
    /// user running the agent.
    #[error(
        "refusing a pack whose path is owned by another user (uid {uid}): {} (fix: copy the pack into a directory you own)",
        xcsh_safe_fs::name::shown(path)
    )]
    ForeignOwner {
        /// The file or directory.
        path: PathBuf,
        /// Its owner's user id.
        uid: u32,
    },
    /// The path names a directory, a device, a FIFO or a socket.
    #[error("not a regular file")]
    NotAFile,
    /// The file at the path is no longer the one that was checked (only
    /// where the checked file cannot be loaded through its descriptor).
    #[error(
        "the file was replaced while it was being loaded: {}",
        xcsh_safe_fs::name::shown(path)
    )]
    Replaced {
        /// The pack's canonical path.
        path: PathBuf,
    },
    /// An allow-list is configured and the pack is not on it.
    #[error("not in the allow-list")]
    NotAllowed,
    /// A project's own allow-list (which can only narrow the user's) does
    /// not list the pack.
    #[error(
        "not in the project's allow-list ({})",
        xcsh_safe_fs::name::shown(config)
    )]
    NotAllowedByProject {
        /// The project config holding the list.
        config: PathBuf,
    },
    /// The pack's SHA-256 differs from its entry in a project's allow-list.
    #[error(
        "SHA-256 {actual} does not match the project's allow-list ({}) (expected {expected})",
        xcsh_safe_fs::name::shown(config)
    )]
    ProjectHashMismatch {
        /// The project config holding the list.
        config: PathBuf,
        /// The hash in the list.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// A pack of a trusted project changed since `xcsh trust` recorded it.
    #[error(
        "changed since the project was trusted (SHA-256 {actual}, trusted {expected}); to load it, run: xcsh trust {}",
        xcsh_safe_fs::name::shown(project)
    )]
    ChangedSinceTrusted {
        /// The trusted project directory.
        project: PathBuf,
        /// The recorded hash.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// An installed pack's file is not the one `xcsh pack add` pinned.
    #[error(
        "changed since it was added (SHA-256 {actual}, added {expected}); to use it, run: xcsh pack add {}",
        xcsh_safe_fs::name::shown(path)
    )]
    ChangedSinceAdded {
        /// The pack's canonical path.
        path: PathBuf,
        /// The hash pinned by `xcsh pack add`.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// The pack's SHA-256 differs from its allow-list entry.
    #[error("SHA-256 {actual} does not match the allow-list (expected {expected})")]
    HashMismatch {
        /// The hash in the allow-list.
        expected: String,
        /// The file's hash.
        actual: String,
    },
    /// The file is not a shared library this host's loader reads.
    #[error("not a shared library: {0}")]
    NotALibrary(String),
    /// A library file whose headers are damaged or cut short.
    #[error("corrupt or truncated library: {0}")]
    Corrupt(String),
    /// A library for another architecture.
    #[error("built for {found}, this host is {host}")]
    WrongArchitecture {
        /// The library's architecture.
        found: String,
        /// This host's architecture.
        host: String,
    },
    /// The file ends before the segments its headers describe.
    #[error("truncated library: {size} bytes, its headers need {needed}")]
    Truncated {
        /// The file's size.
        size: u64,
        /// The size its segments need.
        needed: u64,
    },
    /// The OS loader refused the file (not a library, another architecture,
    /// missing dependencies).
    #[error("cannot open library: {0}")]
    Open(String),
    /// A library, but it exports no xcsh root module: its crate does not
    /// use `export_tool_pack!`.
    #[error(
        "not an xcsh tool pack: no root module (symbol {symbol}); add \
         xcsh_plugin_api::export_tool_pack!(your_factory); to the crate's src/lib.rs and rebuild it"
    )]
    MissingRootModule {
        /// The symbol looked for.
        symbol: String,
    },
    /// A static library (an `rlib` or `.a` archive): the pack's crate is
    /// not built as a `cdylib`.
    #[error(
        "not a shared library: {file} is a static library (an rlib); add crate-type = \
         [\"cdylib\", \"rlib\"] under [lib] in the pack's Cargo.toml, rebuild, and load {library}"
    )]
    StaticLibrary {
        /// The file's name, e.g. `libmy_pack.rlib`.
        file: String,
        /// The library the build makes beside it, e.g. `libmy_pack.so`.
        library: String,
    },
    /// A library exporting the plain C interface's version symbol that this
    /// host cannot load (another version, no entry function).
    #[error("{0}")]
    CInterface(String),
    /// The pack declares an ABI version this host does not load.
    #[error("incompatible API version: {}", version_advice(declared, supported))]
    IncompatibleVersion {
        /// What the pack declares.
        declared: String,
        /// What the host loads, e.g. `1.x`.
        supported: String,
    },
    /// The pack's type layouts differ from this host's for its ABI version.
    #[error("ABI mismatch: {0}")]
    AbiMismatch(String),
    /// abi_stable refused the library's header or root module otherwise.
    #[error("invalid library header: {0}")]
    InvalidHeader(String),
    /// The root-module constructor failed or panicked.
    #[error("root module failed to initialise: {0}")]
    RootModule(String),
    /// The factory returned an error.
    #[error("factory returned an error: {0}")]
    Factory(String),
    /// The factory panicked (caught in the pack).
    #[error("factory panicked: {0}")]
    FactoryPanicked(String),
    /// The factory returned no tools.
    #[error("factory returned no tools")]
    NoTools,
    /// The user's configuration table for the pack does not match the
    /// schema the pack declares (one line naming the key).
    #[error("{0}")]
    Config(String),
    /// A tool failed its checks (accessor error or panic, bad name, bad
    /// schema).
    #[error("tool #{index}: {reason}")]
    InvalidTool {
        /// Position of the tool in the factory's list (from 1).
        index: usize,
        /// What is wrong, e.g. `label() panicked: boom`.
        reason: String,
    },
    /// The pack runs isolated, and its own process could not start, refused
    /// it (the loader's one-line cause, checked there) or ended opening it.
    #[error("{0}")]
    Isolated(String),
    /// Opened first in a child process (a library not seen before), the
    /// library killed that process or did not finish, e.g. `its load-time
    /// code killed the process (SIGABRT)`.
    #[error("{0}")]
    FirstSeen(String),
}

/// Longest cause kept in a one-line error.
const MAX_CAUSE: usize = 240;

/// `text` on one line, at most [`MAX_CAUSE`] characters.
pub(crate) fn one_line(text: impl Display) -> String {
    let text = text.to_string();
    let mut line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > MAX_CAUSE {
        line = line.chars().take(MAX_CAUSE - 1).collect::<String>() + "…";
    }
    line
}

/// The `Error:` lines at the end of an abi_stable layout report, which
/// say what differs; the surrounding kilobytes of layout dump do not.
fn summarise_layout_error(report: &str) -> String {
    let errors: Vec<&str> = report
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("Error:"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if errors.is_empty() {
        one_line(report)
    } else {
        one_line(errors.join("; "))
    }
}

impl LoadError {
    /// Maps abi_stable's error for the library at `path` to one line.
    pub(crate) fn from_library(error: LibraryError) -> Self {
        Self::from_library_with(error, None)
    }

    /// As [`from_library`](Self::from_library), for a library whose root
    /// module type comes from the package and version `pack` (read from its
    /// header): a layout mismatch then says which side is older.
    pub(crate) fn from_library_with(error: LibraryError, pack: Option<(&str, &str)>) -> Self {
        if let LibraryError::AbiInstability(report) = &error {
            return Self::abi_mismatch(&report.to_string(), pack);
        }
        tracing::debug!(%error, "abi_stable refused a library");
        match error {
            LibraryError::OpenError { err, .. } => Self::Open(one_line(err)),
            LibraryError::GetSymbolError { symbol, .. } => Self::MissingRootModule {
                symbol: String::from_utf8_lossy(&symbol)
                    .trim_end_matches('\0')
                    .to_owned(),
            },
            LibraryError::IncompatibleVersionNumber { actual_version, .. } => {
                Self::IncompatibleVersion {
                    declared: actual_version.to_string(),
                    supported: supported_versions(),
                }
            }
            LibraryError::ParseVersionError(e) => Self::InvalidHeader(one_line(e)),
            LibraryError::RootModule { err, .. } => Self::RootModule(match err {
                RootModuleError::Returned(e) => one_line(e),
                RootModuleError::Unwound => "constructor panicked".to_owned(),
            }),
            LibraryError::AbiInstability(report) => Self::abi_mismatch(&report.to_string(), pack),
            LibraryError::InvalidAbiHeader(header) => Self::InvalidHeader(one_line(format!(
                "abi_stable header {header:?} is not compatible with this host's"
            ))),
            LibraryError::InvalidCAbi { expected, found } => Self::InvalidHeader(one_line(
                format!("C ABI mismatch: expected {expected}, found {found}"),
            )),
            LibraryError::Many(errors) => errors
                .into_iter()
                .next()
                .map(|error| Self::from_library_with(error, pack))
                .unwrap_or_else(|| Self::InvalidHeader("unknown error".to_owned())),
        }
    }
}

/// `xcsh-plugin-api`, and the version this host was built with, as the
/// layout of its root module records them (e.g. `1.4.0`).
pub(crate) fn host_sdk() -> (&'static str, String) {
    declaring_package(
        <xcsh_plugin_api::abi::v2::ToolPackModuleV2Ref as abi_stable::StableAbi>::LAYOUT,
    )
    .unwrap_or(("xcsh-plugin-api", "unknown".to_owned()))
}

/// The package, and its version, that declares the root module type of
/// `layout`: the first type below it not of abi_stable's own (the layout
/// of a root module is abi_stable's prefix reference to the pack's type).
pub(crate) fn declaring_package(layout: &'static TypeLayout) -> Option<(&'static str, String)> {
    let mut level = vec![layout];
    for _ in 0..3 {
        let mut below = Vec::new();
        for layout in level {
            let (package, version) = layout.package_and_version();
            if package.as_str() != "abi_stable" {
                return Some((package.as_str(), version.to_string()));
            }
            below.extend(
                layout
                    .shared_vars()
                    .type_layouts()
                    .iter()
                    .map(|layout| layout()),
            );
        }
        level = below;
    }
    None
}

/// `major.minor` of a version such as `1.4.0`.
fn minor_series(version: &str) -> &str {
    version
        .rsplit_once('.')
        .map_or(version, |(series, _)| series)
}

/// Which side of an ABI version mismatch is older, and what to rebuild:
/// the cause of [`LoadError::IncompatibleVersion`].
fn version_advice(declared: &str, supported: &str) -> String {
    let (_, host) = host_sdk();
    let declared_major = declared
        .split('.')
        .next()
        .and_then(|major| major.parse::<u32>().ok());
    let newest = xcsh_plugin_api::abi::SUPPORTED_ABI_MAJORS.iter().max();
    let rebuild = format!(
        "rebuild the pack against xcsh-plugin-api {} (what this xcsh was built with)",
        minor_series(&host)
    );
    match (declared_major, newest) {
        (Some(major), Some(&newest)) if major > newest => format!(
            "the pack declares ABI {declared}, newer than this xcsh loads (ABI {supported}): \
             update xcsh, or {rebuild}"
        ),
        _ => format!(
            "the pack declares ABI {declared}, older than this xcsh loads (ABI {supported}): {rebuild}"
        ),
    }
}

/// One finding of an abi_stable layout report: what differs, what the host
/// expected and what the pack has.
#[derive(Debug, PartialEq, Eq)]
struct Finding {
    what: String,
    expected: String,
    found: String,
}

/// The first `Error:` of a layout report with its `Expected:` and
/// `Found:` values.
fn first_finding(report: &str) -> Option<Finding> {
    let mut lines = report.lines().map(str::trim);
    let what = lines
        .find_map(|l| l.strip_prefix("Error:"))?
        .trim()
        .to_owned();
    let mut expected = Vec::new();
    let mut found = Vec::new();
    let mut into: Option<&mut Vec<&str>> = None;
    for line in lines {
        match line {
            "Expected:" => into = Some(&mut expected),
            "Found:" => into = Some(&mut found),
            _ if line.starts_with("Error:") || line.starts_with("Extra:") => break,
            _ if !line.is_empty() => {
                if let Some(values) = into.as_mut() {
                    values.push(line);
                }
            }
            _ => {}
        }
    }
    Some(Finding {
        what,
        expected: one_line(expected.join(" ")),
        found: one_line(found.join(" ")),
    })
}

impl LoadError {
    /// A layout mismatch of the root module, in one line that says which
    /// side is which and what to rebuild. `pack` is the package and
    /// version the pack's root module type comes from, when its header
    /// records them; `report` is abi_stable's full report.
    pub(crate) fn abi_mismatch(report: &str, pack: Option<(&str, &str)>) -> Self {
        tracing::debug!(%report, "abi_stable refused a pack's layout");
        let (host_package, host) = host_sdk();
        let rebuild = format!(
            "rebuild the pack against xcsh-plugin-api {} (what this xcsh was built with)",
            minor_series(&host)
        );
        let finding = first_finding(report);
        let cause = match (pack, &finding) {
            (Some((package, _)), _) if package != host_package => format!(
                "the pack's root module comes from the crate {package}, not {host_package}: \
                 export it with xcsh_plugin_api::export_tool_pack! and rebuild"
            ),
            (_, Some(finding)) if finding.what == "mismatched package" => format!(
                "the pack's root module comes from the crate {}, not {}: \
                 export it with xcsh_plugin_api::export_tool_pack! and rebuild",
                finding.found, finding.expected
            ),
            (Some((_, version)), _) if version != host => {
                let side = if version_key(version) < version_key(&host) {
                    "older"
                } else {
                    "newer"
                };
                format!(
                    "the pack was built with xcsh-plugin-api {version} ({side} than this xcsh's \
                     {host}) and its types differ ({}); {rebuild}",
                    summarise_layout_error(report)
                )
            }
            _ => format!(
                "the pack's xcsh-plugin-api types differ from this xcsh's ({host}) although \
                 the versions agree ({}): one side was built from a modified copy; {rebuild}",
                summarise_layout_error(report)
            ),
        };
        Self::AbiMismatch(cause)
    }
}

/// A version's numbers, for ordering (`1.10.0` after `1.9.0`).
fn version_key(version: &str) -> Vec<u64> {
    version
        .split('.')
        .map(|part| part.parse().unwrap_or(0))
        .collect()
}

/// The ABI versions this host loads, e.g. `1.x`.
pub(crate) fn supported_versions() -> String {
    xcsh_plugin_api::abi::SUPPORTED_ABI_MAJORS
        .iter()
        .map(|m| format!("{m}.x"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_reports_shrink_to_their_error_lines() {
        let report = format!(
            "\nCompared <this>:\n{}\nError:prefix-types have a different prefix\n  Expected: 1 Found: 2\nError:unexpected field\n",
            "--- Type Layout ---\n".repeat(200)
        );
        assert_eq!(
            summarise_layout_error(&report),
            "prefix-types have a different prefix; unexpected field"
        );
    }

    #[test]
    fn a_layout_reports_first_finding_keeps_expected_and_found() {
        let report = "Compared <this>:\n    ...\n\nError:mismatched package\nExpected:\n    xcsh-plugin-api\nFound:\n    my-fork\n\nError:unexpected field\n";
        assert_eq!(
            first_finding(report),
            Some(Finding {
                what: "mismatched package".to_owned(),
                expected: "xcsh-plugin-api".to_owned(),
                found: "my-fork".to_owned(),
            })
        );
        assert_eq!(
            LoadError::abi_mismatch(report, None).to_string(),
            "ABI mismatch: the pack's root module comes from the crate my-fork, not \
             xcsh-plugin-api: export it with xcsh_plugin_api::export_tool_pack! and rebuild"
        );
    }

    #[test]
    fn a_layout_mismatch_names_the_older_side_and_what_to_rebuild() {
        let (_, host) = host_sdk();
        let series = minor_series(&host).to_owned();
        let report = "Error:too many fields\nExpected:\n    3\nFound:\n    4\n";
        assert_eq!(
            LoadError::abi_mismatch(report, Some(("xcsh-plugin-api", "1.0.0"))).to_string(),
            format!(
                "ABI mismatch: the pack was built with xcsh-plugin-api 1.0.0 (older than this \
                 xcsh's {host}) and its types differ (too many fields); rebuild the pack \
                 against xcsh-plugin-api {series} (what this xcsh was built with)"
            )
        );
        assert_eq!(
            LoadError::abi_mismatch(report, Some(("xcsh-plugin-api", host.as_str()))).to_string(),
            format!(
                "ABI mismatch: the pack's xcsh-plugin-api types differ from this xcsh's ({host}) \
                 although the versions agree (too many fields): one side was built from a \
                 modified copy; rebuild the pack against xcsh-plugin-api {series} (what this \
                 xcsh was built with)"
            )
        );
    }

    #[test]
    fn a_version_mismatch_says_which_side_is_older() {
        let (_, host) = host_sdk();
        let series = minor_series(&host).to_owned();
        let newer = LoadError::IncompatibleVersion {
            declared: "9.0.0".to_owned(),
            supported: supported_versions(),
        };
        assert_eq!(
            newer.to_string(),
            format!(
                "incompatible API version: the pack declares ABI 9.0.0, newer than this xcsh \
                 loads (ABI 2.x, 1.x): update xcsh, or rebuild the pack against xcsh-plugin-api \
                 {series} (what this xcsh was built with)"
            )
        );
        let older = LoadError::IncompatibleVersion {
            declared: "0.3.0".to_owned(),
            supported: supported_versions(),
        };
        assert_eq!(
            older.to_string(),
            format!(
                "incompatible API version: the pack declares ABI 0.3.0, older than this xcsh \
                 loads (ABI 2.x, 1.x): rebuild the pack against xcsh-plugin-api {series} (what \
                 this xcsh was built with)"
            )
        );
    }

    #[test]
    fn one_line_folds_and_truncates() {
        assert_eq!(one_line("a\n\tb  c\n"), "a b c");
        let long = one_line("x".repeat(1000));
        assert_eq!(long.chars().count(), MAX_CAUSE);
        assert!(long.ends_with('…'));
    }
}
