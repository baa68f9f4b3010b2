//! Checking a pack in a child process, as loading does: a pack being added
//! is untrusted code, so its load-time code runs in a `xcsh pack-host`
//! process (sandboxed where the kernel allows), never in this one.

use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::Duration;

use xcsh_isolate_protocol::{OpenPack, Opened, SandboxRequest, convert, error_line};

use crate::compare::difference;
use xcsh_isolate::{PackProcess, Protected, StartSpec};
use xcsh_sources::registry::ToolRecord;

/// [`check_in_child`] twice, in two processes at once. Installed tools
/// are offered from their record, so a pack whose tools differ between two
/// loads (a name made from an address or a random number) is refused here
/// rather than at every first use.
///
/// # Errors
///
/// Either check failed (the first one's cause when both did), or the two
/// loads offered different tools.
pub fn check_twice(
    path: &Path,
    cwd: &Path,
    open_limit: Option<Duration>,
) -> Result<(Opened, Vec<ToolRecord>), String> {
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| check_in_child(path, cwd, open_limit));
        let first = check_in_child(path, cwd, open_limit);
        (first, second.join())
    });
    let (opened, tools) = first?;
    let (_, again) = second.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
    match difference(&tools, &again) {
        None => Ok((opened, tools)),
        Some(difference) => Err(format!(
            "its tools differ between two loads ({difference}); a pack must offer the same tools every time it is opened"
        )),
    }
}

/// Opens the pack at `path` (canonical) in a child process working in
/// `cwd`, reads what it offers and stops the process. Everything the
/// loader checks is checked there: object headers, ABI version, type
/// layouts, the factory and every tool's name and schema.
///
/// # Errors
///
/// The loader's one-line cause, or how the child ended (a crash in the
/// pack's load-time code included, or its being stopped after
/// `open_limit`).
pub fn check_in_child(
    path: &Path,
    cwd: &Path,
    open_limit: Option<Duration>,
) -> Result<(Opened, Vec<ToolRecord>), String> {
    let pack = xcsh_loader::SealedPack::open(path, &xcsh_loader::TrustPolicy::new())
        .map_err(|e| e.to_string())?;
    // The pack's code runs: it may not read the user's secrets either.
    let hidden = match xcsh_sources::UserDirs::from_os().data {
        Some(data) => {
            let dir = xcsh_sources::private_dir::prepare(&data)?;
            vec![std::fs::canonicalize(&dir).unwrap_or(dir)]
        }
        None => Vec::new(),
    };
    let spec = StartSpec {
        exe: None,
        pack: Arc::new(pack),
        verbosity: 0,
        open: OpenPack {
            path: path.to_path_buf(),
            cwd: cwd.to_path_buf(),
            // Checking writes nothing and reaches nothing.
            sandbox: SandboxRequest {
                writable: vec![std::env::temp_dir()],
                write_anywhere: false,
                network: false,
                processes: false,
                required: false,
                // Set when the process starts (see `handover`).
                in_namespaces: false,
                hidden,
            },
            memory_limit: None,
            // Checking runs the factory with no configuration: what the
            // pack's tools are does not depend on it.
            allow_outside_root: false,
            configs_json: "{}".to_owned(),
        },
        open_limit,
        frame_limit: xcsh_isolate_protocol::frame::MAX_FRAME_BYTES,
        protected: Protected::default(),
        // It writes nothing and reaches nothing: no secret could leave.
        env: None,
        require_namespaces: false,
        without_namespaces: false,
    };
    let (process, opened) = PackProcess::start(&spec, Weak::new(), None, Arc::new(|_, _| {}))
        .map_err(|error| error_line(&error))?;
    process.shut_down();
    let tools = opened
        .tools
        .iter()
        .map(|spec| {
            let parameters: serde_json::Value = serde_json::from_str(&spec.parameters_json)
                .map_err(|e| format!("{}: parameters are not valid JSON: {e}", spec.name))?;
            Ok(ToolRecord {
                name: spec.name.clone(),
                label: spec.label.clone(),
                description: spec.description.clone(),
                parameters: parameters.into(),
                hints: convert::hints_from_wire(spec.hints),
            })
        })
        .collect::<Result<_, String>>()?;
    Ok((opened, tools))
}
