//! The child side: `xcsh pack-host` opens one pack with the same loader and
//! checks as the agent, and serves its tools over its standard input and
//! output. The agent starts it; people never run it by hand.
//!
//! The thread that reads a call runs it and then reads on; a call that
//! runs long has its reading handed to another thread ([`Relief`]), so it
//! never blocks a cancellation, another call, or an apply. Every push the
//! pack makes is forwarded before the reply of the call that made it.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write as _};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use xcsh_core::{
    CancellationToken, PackOptions, PendingEntry, Session, Tool, ToolContext, ToolError,
    panic_message,
};
use xcsh_isolate_protocol::{
    Hello, OpenPack, Opened, Outcome, PACK_FD, PushedAction, Reply, Request, SandboxStatus,
    ToolSpec, frame,
};
use xcsh_loader::{HostBinding, SealedPack};

use super::locked::lock;
use super::relief::Relief;
use super::serve_error::ServeError;
use super::spin_read::SpinRead;
use super::{sandbox, wire};

/// The hidden subcommand that serves one isolated pack.
pub const SUBCOMMAND: &str = "pack-host";

/// Serves one pack until the agent closes the pipe.
///
/// # Errors
///
/// The pipes cannot be set up, or the agent speaks another protocol.
pub fn serve() -> Result<(), ServeError> {
    // A crash here ends this process only; the agent names the pack.
    xcsh_loader::disable_crash_reports();
    let (input, output) = take_protocol_pipes()?;
    // Polled briefly before sleeping: the next request of a script's run
    // of calls comes within microseconds of the last reply.
    let mut input =
        BufReader::new(SpinRead::new(input).map_err(ServeError::setup("the request pipe"))?);
    let mut output = BufWriter::new(output);
    let mut buffer = Vec::new();
    let hello: Hello = frame::read(&mut input, &mut buffer)
        .map_err(ServeError::Handshake)?
        .ok_or(ServeError::NoHello)?;
    frame::write(&mut output, &Hello::current()).map_err(ServeError::Handshake)?;
    output
        .flush()
        .map_err(ServeError::setup("sending the hello"))?;
    if !Hello::current().is_compatible_with(&hello) {
        return Err(ServeError::Protocol {
            agent: hello.version,
            ours: Hello::current().version,
        });
    }
    let Some(Request::Open(open)) =
        frame::read(&mut input, &mut buffer).map_err(ServeError::Handshake)?
    else {
        return Err(ServeError::NoOpen);
    };
    let writer = Arc::new(Writer(Mutex::new(output)));
    let server = match open_pack(&open, &writer) {
        Ok((session, tools, opened)) => {
            writer.send(&Reply::Opened(opened));
            Server::new(Arc::clone(&writer), session, tools, open.cwd)
        }
        Err(message) => {
            writer.send(&Reply::OpenFailed { message });
            return Ok(());
        }
    };
    let server = Arc::new(server);
    let input = Arc::new(Input {
        reader: Mutex::new((input, buffer)),
        relief: Relief::new(),
    });
    let (watching, watched) = (Arc::clone(&server), Arc::clone(&input));
    std::thread::Builder::new()
        .name("xcsh-pack-relief".into())
        .spawn(move || {
            watched
                .relief
                .watch(|| start_reader(Arc::clone(&watching), Arc::clone(&watched)))
        })
        .map_err(ServeError::setup(
            "starting the thread that hands over reading",
        ))?;
    lead(&server, &input)
}

/// The request pipe, read by the thread that holds the lead.
struct Input {
    reader: Mutex<(BufReader<SpinRead<File>>, Vec<u8>)>,
    relief: Relief,
}

/// Reads requests and runs them: the thread that reads a job runs it
/// itself and then reads on, unless the job ran long enough for the
/// relief to give the reading to another thread; then this one waits
/// until it is given the reading back. A call costs no hand-over to
/// another thread, and one that never returns holds only its own thread.
fn lead(server: &Arc<Server>, input: &Arc<Input>) -> Result<(), ServeError> {
    loop {
        let job = {
            let mut reading = lock(&input.reader);
            let (reader, buffer) = &mut *reading;
            let request = match frame::read::<Request>(reader, buffer) {
                Ok(Some(request)) => request,
                // The agent is gone: so is this process, running calls included.
                Ok(None) => std::process::exit(0),
                Err(error) => return Err(ServeError::Request(error)),
            };
            match server.handle(request) {
                Some(job) => job,
                None => continue,
            }
        };
        input.relief.job_starts();
        job();
        if !input.relief.job_ends() {
            input.relief.wait_for_lead();
        }
    }
}

/// Starts a thread that holds the lead (the relief gave it): false if
/// none could start.
fn start_reader(server: Arc<Server>, input: Arc<Input>) -> bool {
    let started = std::thread::Builder::new()
        .name("xcsh-pack-worker".into())
        .spawn(move || {
            if let Err(error) = lead(&server, &input) {
                eprintln!("xcsh pack-host: {error}");
                std::process::exit(1);
            }
        });
    match started {
        Ok(_) => true,
        Err(error) => {
            tracing::error!(%error, "cannot start a thread to read requests");
            false
        }
    }
}

/// Moves the protocol off file descriptors 0 and 1, so a pack that prints
/// to standard output (or reads standard input) cannot corrupt it: its
/// output goes to stderr, its input is `/dev/null`.
#[cfg(unix)]
fn take_protocol_pipes() -> Result<(File, File), ServeError> {
    use nix::unistd::{dup, dup2_stdin, dup2_stdout};
    let io = |what| move |errno: nix::errno::Errno| ServeError::setup(what)(errno.into());
    let input = File::from(dup(std::io::stdin()).map_err(io("dup stdin"))?);
    let output = File::from(dup(std::io::stdout()).map_err(io("dup stdout"))?);
    dup2_stdout(std::io::stderr()).map_err(io("redirect stdout"))?;
    let null = File::open("/dev/null").map_err(ServeError::setup("open /dev/null"))?;
    dup2_stdin(&null).map_err(io("redirect stdin"))?;
    Ok((input, output))
}

#[cfg(not(unix))]
fn take_protocol_pipes() -> Result<(File, File), ServeError> {
    Err(ServeError::NotUnix)
}

/// An opened pack: its session (the store its pushes land in), its tools,
/// and what the agent is told.
type OpenedPack = (Session, Vec<Arc<dyn Tool>>, Opened);

/// Sets the limits, enters the sandbox, tells the agent which (before any
/// of the pack's code runs), then maps the sealed library the agent handed
/// over and opens the pack.
fn open_pack(open: &OpenPack, writer: &Writer) -> Result<OpenedPack, String> {
    if let Some(limit) = open.memory_limit {
        sandbox::limit_memory(limit)?;
    }
    let sandbox = sandbox::enter(&open.sandbox)?;
    if open.sandbox.required
        && let SandboxStatus::Unconfined { reason, .. } = &sandbox
        && !(open.sandbox.network && open.sandbox.write_anywhere)
    {
        return Err(format!(
            "refusing to run it unconfined ({reason}): the config sets require_sandbox"
        ));
    }
    writer.send(&Reply::Sandboxed(sandbox.clone()));
    let pack = SealedPack::inherited(open.path.clone(), PACK_FD).map_err(|e| e.to_string())?;
    let session = Session::new(&open.cwd);
    session.set_pack_options(PackOptions {
        allow_outside_root: open.allow_outside_root,
        configs: serde_json::from_str(&open.configs_json)
            .map_err(|error| format!("the agent sent unreadable pack configuration: {error}"))?,
    });
    let (report, library) = pack.load(&session, &HostBinding::for_session(&session));
    if let Some(failure) = report.failures.into_iter().next() {
        return Err(failure.error.to_string());
    }
    let loaded = report
        .loaded
        .into_iter()
        .next()
        .ok_or_else(|| "the pack registered no tools".to_owned())?;
    let tools: Vec<Arc<dyn Tool>> = session
        .tools()
        .into_iter()
        .filter(|tool| loaded.tools.iter().any(|name| name == tool.name()))
        .collect();
    let specs = tools
        .iter()
        .map(|tool| ToolSpec {
            name: tool.name().to_owned(),
            label: tool.label().to_owned(),
            description: tool.description().to_owned(),
            parameters_json: tool.parameters().to_string(),
            hints: wire::hints_to_wire(tool.hints()),
        })
        .collect();
    let abi_version = library
        .map(|library| library.abi_version().to_owned())
        .unwrap_or_default();
    let opened = Opened {
        name: loaded.name,
        version: loaded.version,
        abi_version,
        path: loaded.path,
        tools: specs,
        sandbox,
    };
    Ok((session, tools, opened))
}

/// The write half of the pipe, one frame at a time.
struct Writer(Mutex<BufWriter<File>>);

impl Writer {
    /// Sends `reply`. If the agent is gone there is no one to serve: exit.
    fn send(&self, reply: &Reply) {
        let mut out = lock(&self.0);
        if frame::write(&mut *out, reply)
            .and_then(|()| out.flush().map_err(Into::into))
            .is_err()
        {
            std::process::exit(0);
        }
    }
}

/// Work that may take long: a call, an apply or a reject.
type Job = Box<dyn FnOnce() + Send>;

/// The pack's tools, its pushed actions and the calls in flight.
struct Server {
    writer: Arc<Writer>,
    tools: HashMap<String, Arc<dyn Tool>>,
    cwd: PathBuf,
    actions: Arc<Mutex<HashMap<u64, PendingEntry>>>,
    cancels: Arc<Mutex<HashMap<u64, CancellationToken>>>,
    // Keeps the pack's store and the push forwarding alive.
    _session: Arc<Session>,
    _forwarding: xcsh_core::Subscription,
}

impl Server {
    fn new(writer: Arc<Writer>, session: Session, tools: Vec<Arc<dyn Tool>>, cwd: PathBuf) -> Self {
        let actions = Arc::new(Mutex::new(HashMap::new()));
        let session = Arc::new(session);
        let next = Arc::new(AtomicU64::new(1));
        let forward = {
            let (session, writer, actions, next) = (
                Arc::downgrade(&session),
                Arc::clone(&writer),
                Arc::clone(&actions),
                Arc::clone(&next),
            );
            move || {
                if let Some(session) = session.upgrade() {
                    forward_pushes(&session, &actions, &writer, &next);
                }
            }
        };
        let forwarding = session.store().subscribe({
            let forward = forward.clone();
            move |_| forward()
        });
        // Anything the factory pushed while the pack opened.
        forward();
        Self {
            writer,
            tools: tools
                .into_iter()
                .map(|tool| (tool.name().to_owned(), tool))
                .collect(),
            cwd,
            actions,
            cancels: Arc::new(Mutex::new(HashMap::new())),
            _session: session,
            _forwarding: forwarding,
        }
    }

    /// Handles a quick request at once; returns the work of a long one.
    fn handle(&self, request: Request) -> Option<Job> {
        match request {
            Request::Call {
                id,
                tool,
                call_id,
                arguments_json,
            } => self.call(id, tool, call_id, arguments_json),
            Request::Cancel { id } => {
                if let Some(token) = lock(&self.cancels).get(&id) {
                    token.cancel();
                }
                None
            }
            Request::Apply { id, action, reason } => {
                let entry = lock(&self.actions).get(&action).cloned();
                let writer = Arc::clone(&self.writer);
                Some(Box::new(move || {
                    let outcome = match entry {
                        Some(entry) => {
                            into_outcome(guarded(|| entry.action().apply(&reason)), |o| {
                                Outcome::Output(wire::output_to_wire(&o))
                            })
                        }
                        None => unknown_action(action),
                    };
                    writer.send(&Reply::Done { id, outcome });
                }))
            }
            Request::Reject { id, action, reason } => {
                let entry = lock(&self.actions).remove(&action);
                let writer = Arc::clone(&self.writer);
                Some(Box::new(move || {
                    let outcome = match entry {
                        Some(entry) => {
                            match guarded(|| entry.action().reject(&reason).unwrap_or(Ok(None))) {
                                Ok(Some(output)) => Outcome::Output(wire::output_to_wire(&output)),
                                Ok(None) => Outcome::Nothing,
                                Err(error) => wire::error_to_wire(&error),
                            }
                        }
                        None => unknown_action(action),
                    };
                    writer.send(&Reply::Done { id, outcome });
                }))
            }
            Request::Forget { action } => {
                lock(&self.actions).remove(&action);
                None
            }
            Request::Open(_) => {
                tracing::warn!("ignored a second request to open a pack");
                None
            }
        }
    }

    fn call(&self, id: u64, tool: String, call_id: String, arguments_json: String) -> Option<Job> {
        let Some(tool) = self.tools.get(&tool).cloned() else {
            let message = format!("Unknown tool: {tool}");
            self.writer.send(&Reply::Done {
                id,
                outcome: Outcome::Error {
                    message,
                    details_json: None,
                },
            });
            return None;
        };
        let token = CancellationToken::new();
        lock(&self.cancels).insert(id, token.clone());
        let (progress_writer, log_writer) = (Arc::clone(&self.writer), Arc::clone(&self.writer));
        let context = ToolContext::new(call_id, self.cwd.clone())
            .with_cancellation(token)
            .with_progress(Arc::new(move |partial| {
                progress_writer.send(&Reply::Progress {
                    id,
                    output: wire::output_to_wire(partial),
                });
            }))
            // The pack's own lines during this call (see `xcsh_loader`'s
            // attribution); the agent names the pack itself.
            .with_log(Arc::new(move |level, _pack, message| {
                log_writer.send(&Reply::Log {
                    id,
                    level: wire::log_level_to_wire(level),
                    message: message.to_owned(),
                });
            }));
        let (writer, cancels) = (Arc::clone(&self.writer), Arc::clone(&self.cancels));
        Some(Box::new(move || {
            let result = serde_json::from_str::<Value>(&arguments_json)
                .map_err(|e| ToolError::new(format!("arguments are not JSON: {e}")))
                // A call of its own, as the agent's session runs it: the
                // pack's pushes count only until it returns.
                .and_then(|arguments| {
                    let _request = RequestOnThread::enter(id);
                    xcsh_core::run_as_call(|| guarded(|| tool.execute(arguments, &context)))
                });
            lock(&cancels).remove(&id);
            let outcome = into_outcome(result, |o| Outcome::Output(wire::output_to_wire(&o)));
            writer.send(&Reply::Done { id, outcome });
        }))
    }
}

thread_local! {
    /// The request whose call runs on this thread: pushes forwarded from
    /// it name that call, so the agent can attribute them.
    static CURRENT_REQUEST: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Marks this thread as running request `id` until dropped.
struct RequestOnThread(Option<u64>);

impl RequestOnThread {
    fn enter(id: u64) -> Self {
        Self(CURRENT_REQUEST.replace(Some(id)))
    }
}

impl Drop for RequestOnThread {
    fn drop(&mut self) {
        CURRENT_REQUEST.set(self.0);
    }
}

/// Forwards every action on the pack's store to the agent, oldest first.
///
/// Runs in the pushing thread, after the push. The actions lock is held
/// while the stack is drained and sent: whichever listener drains a push,
/// it is on the pipe before the push returns, so before the reply of the
/// call that made it.
fn forward_pushes(
    session: &Session,
    actions: &Mutex<HashMap<u64, PendingEntry>>,
    writer: &Writer,
    next: &AtomicU64,
) {
    let mut actions = lock(actions);
    // The agent's session reminds its model; this one has no model.
    session.take_messages();
    for entry in session.store().clear().into_iter().rev() {
        let action = next.fetch_add(1, Ordering::Relaxed);
        let pushed = entry.action();
        writer.send(&Reply::Pushed(PushedAction {
            action,
            call: CURRENT_REQUEST.get(),
            label: pushed.label().to_owned(),
            source_tool_name: pushed.source_tool_name().to_owned(),
            details_json: pushed.details().map(Value::to_string),
            has_reject: pushed.has_reject(),
        }));
        actions.insert(action, entry);
    }
}

/// Runs host-side code that should not panic; if it does, an error.
fn guarded<T>(work: impl FnOnce() -> Result<T, ToolError>) -> Result<T, ToolError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|payload| {
        Err(ToolError::new(format!(
            "pack host panicked: {}",
            panic_message(&*payload)
        )))
    })
}

fn into_outcome<T>(result: Result<T, ToolError>, ok: impl FnOnce(T) -> Outcome) -> Outcome {
    match result {
        Ok(value) => ok(value),
        Err(error) => wire::error_to_wire(&error),
    }
}

fn unknown_action(action: u64) -> Outcome {
    Outcome::Error {
        message: format!("the pack's process has no pending action {action}"),
        details_json: None,
    }
}
