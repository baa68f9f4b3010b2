//! Isolated packs offered from their start records: the second start-up in
//! the same working directory starts no pack process, the first call
//! starts it, and a record that lies (forged tools) or a library changed
//! after the offer runs nothing it did not check.

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;
use xcsh_agent::Agent;
use xcsh_core::ToolCall;
use xcsh_isolate::IsolationPolicy;
use xcsh_sources::{Discovery, RunPolicy};

use crate::support::{Env, XCSH, arg, copy_pack};

/// A session in `work` over the isolated pack `pack`, its start records
/// kept in `records`.
fn start(work: &Path, records: &Path, pack: &Path) -> Agent {
    let policy = RunPolicy {
        tool_timeout: Some(Duration::from_secs(30)),
        isolation: IsolationPolicy {
            all: true,
            host_exe: Some(XCSH.into()),
            start_records: Some(records.to_path_buf()),
            ..IsolationPolicy::default()
        },
        ..RunPolicy::default()
    };
    let discovery = Discovery {
        packs: vec![pack.to_path_buf()],
        from_project: Vec::new(),
        warnings: Vec::new(),
    };
    Agent::start(work, discovery, &policy).unwrap()
}

/// The text of calling `tool` with no arguments, and whether it is an error.
fn call(agent: &Agent, tool: &str) -> (bool, String) {
    let result = agent
        .session
        .execute(&ToolCall::new("call-1", tool, json!({})));
    (result.is_error, result.text())
}

/// Each offered tool's name, description and schema.
fn offered(agent: &Agent) -> Vec<(String, String, Value)> {
    agent
        .session
        .offered_tools()
        .iter()
        .map(|tool| {
            (
                tool.name().to_owned(),
                tool.description().to_owned(),
                tool.parameters().clone(),
            )
        })
        .collect()
}

/// The one start record in `records`.
fn the_record(records: &Path) -> std::path::PathBuf {
    let entries: Vec<_> = fs::read_dir(records)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("isolated-"))
        })
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

#[test]
fn a_recorded_pack_is_offered_the_same_and_starts_at_its_first_call() {
    let (home, work) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let records = home.path().join("records");
    let pack = copy_pack("fixture-crashy", &home.path().join("packs"));

    let first = start(work.path(), &records, &pack);
    assert!(first.report.is_clean(), "{:?}", first.problems());
    assert!(!first.isolated[0].deferred, "nothing was recorded yet");
    let (tools, sandbox) = (offered(&first), first.isolated[0].sandbox.clone());
    drop(first);

    let second = start(work.path(), &records, &pack);
    assert!(second.report.is_clean(), "{:?}", second.problems());
    assert!(second.isolated[0].deferred, "offered from its record");
    assert_eq!(
        offered(&second),
        tools,
        "the same tools, descriptors included"
    );
    assert_eq!(second.isolated[0].sandbox, sandbox);
    assert_eq!(second.report.loaded[0].name, "fixture-crashy");
    assert_eq!(call(&second, "crashy_ok"), (false, "still here".to_owned()));
    assert_eq!(
        call(&second, "crashy_ok"),
        (false, "still here".to_owned()),
        "started once, then called like any isolated pack"
    );

    let elsewhere = TempDir::new().unwrap();
    let third = start(elsewhere.path(), &records, &pack);
    assert!(
        !third.isolated[0].deferred,
        "another working directory is another start"
    );
}

#[test]
fn a_forged_record_offers_tools_that_refuse_to_run() {
    let (home, work) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let records = home.path().join("records");
    let pack = copy_pack("fixture-crashy", &home.path().join("packs"));
    drop(start(work.path(), &records, &pack));

    // The attacker rewrites the record: a tool the pack does not have.
    let entry = the_record(&records);
    let mut record: Value = serde_json::from_str(&fs::read_to_string(&entry).unwrap()).unwrap();
    let mut forged = record["tools"][0].clone();
    forged["name"] = "crashy_forged".into();
    forged["description"] = "Run anything.".into();
    record["tools"].as_array_mut().unwrap().push(forged);
    fs::write(&entry, record.to_string()).unwrap();

    let agent = start(work.path(), &records, &pack);
    assert!(agent.isolated[0].deferred);
    let refused = "isolated pack fixture-crashy failed to start: it does not offer the tools this session was shown (crashy_forged is gone); restart xcsh to offer its tools anew";
    assert_eq!(
        call(&agent, "crashy_forged"),
        (
            true,
            format!("Tool crashy_forged is unavailable: {refused}")
        )
    );
    assert_eq!(
        call(&agent, "crashy_ok"),
        (true, format!("Tool crashy_ok is unavailable: {refused}")),
        "none of the pack's tools runs once its offer was false"
    );
}

#[test]
fn a_library_changed_after_the_offer_is_not_started() {
    let (home, work) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let records = home.path().join("records");
    let pack = copy_pack("fixture-crashy", &home.path().join("packs"));
    drop(start(work.path(), &records, &pack));
    let recorded: Value =
        serde_json::from_str(&fs::read_to_string(the_record(&records)).unwrap()).unwrap();

    let agent = start(work.path(), &records, &pack);
    assert!(agent.isolated[0].deferred);
    // Changed in place after the offer: still a loadable pack with the same
    // tools, but not the bytes the record names.
    fs::OpenOptions::new()
        .append(true)
        .open(&pack)
        .unwrap()
        .write_all(b"\0")
        .unwrap();
    let now = xcsh_loader::sha256_hex(&fs::read(&pack).unwrap());
    let (is_error, text) = call(&agent, "crashy_ok");
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "Tool crashy_ok is unavailable: isolated pack fixture-crashy failed to start: {} changed after this session was shown its tools (SHA-256 {now}, then {}); restart xcsh to offer its tools anew",
            fs::canonicalize(&pack).unwrap().display(),
            recorded["sha256"].as_str().unwrap()
        )
    );
}

#[test]
fn a_recorded_pack_the_trust_rules_now_refuse_is_refused_at_start_up() {
    use std::os::unix::fs::PermissionsExt;
    let (home, work) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let records = home.path().join("records");
    let pack = copy_pack("fixture-crashy", &home.path().join("packs"));
    drop(start(work.path(), &records, &pack));

    fs::set_permissions(&pack, fs::Permissions::from_mode(0o664)).unwrap();
    let agent = start(work.path(), &records, &pack);
    assert!(agent.isolated.is_empty());
    assert!(
        agent
            .session
            .offered_tools()
            .iter()
            .all(|t| t.name() != "crashy_ok")
    );
    assert_eq!(
        agent.problems(),
        [format!(
            "Failed to load tool pack {}: {}",
            pack.display(),
            xcsh_loader::LoadError::GroupWritable {
                path: fs::canonicalize(&pack).unwrap()
            }
        )]
    );
}

/// `xcsh tools --isolate` starts no pack process the second time in the
/// same directory (the load-marker pack counts every mapping), and says
/// its pack starts at first call; `xcsh run` then starts it once.
#[test]
fn the_second_start_up_in_a_directory_starts_no_pack_process() {
    let env = Env::new();
    let pack = copy_pack("fixture-load-marker", &env.home.path().join("packs"));
    env.grant_env(&pack, &["XCSH_LOAD_MARKER"]);
    let marker = env.work().join("marker");
    let tools = |env: &Env| {
        let mut command = env.command(&["tools", "--isolate", "--plugin", arg(&pack)]);
        command.env("XCSH_LOAD_MARKER", &marker);
        env.run_command(command, "")
    };
    let lines = |marker: &Path| {
        fs::read_to_string(marker)
            .unwrap_or_default()
            .lines()
            .count()
    };

    let first = tools(&env);
    assert_eq!(first.code, Some(0), "{first:?}");
    assert_eq!(lines(&marker), 1, "the first start-up starts the pack");
    assert!(
        !first.stdout.contains("starts at first call"),
        "{}",
        first.stdout
    );

    let second = tools(&env);
    assert_eq!(second.code, Some(0), "{second:?}");
    assert_eq!(lines(&marker), 1, "the second start-up started the pack");
    let line = second
        .stdout
        .lines()
        .find(|line| line.contains("marker_tool"))
        .unwrap_or_else(|| panic!("{}", second.stdout));
    assert!(line.contains(", isolated, "), "{line}");
    assert!(line.ends_with(", starts at first call"), "{line}");

    let mut command = env.command(&["run", "--isolate", "--plugin", arg(&pack), "-"]);
    command.env("XCSH_LOAD_MARKER", &marker);
    let run = env.run_command(
        command,
        "{\"tool\": \"marker_tool\"}\n{\"tool\": \"marker_tool\"}\n",
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout.matches("from load-marker").count(),
        2,
        "{}",
        run.stdout
    );
    assert_eq!(lines(&marker), 2, "started once, at the first call");
}
