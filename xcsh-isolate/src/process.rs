//! One running process of an isolated pack, seen from the agent: the
//! handshake, requests and their replies, pushes into the session's store,
//! and how the process ended.

use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Write as _};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use xcsh_core::{PendingAction, PendingActionStore, ToolContext};
use xcsh_isolate_protocol::{
    FrameError, Hello, LogLevel, OpenPack, Opened, Outcome, Output, PushedAction, Reply, Request,
    SandboxStatus, frame,
};

use super::ending::Ending;
pub use super::ending::Failure;
use super::placeholders::Placeholders;
use super::remote_action::{self, ActionHost};
use super::running::Running;
use super::serve::SUBCOMMAND;
use super::spin_read::SpinRead;
pub use super::start_spec::StartSpec;
use super::stderr_tail::StderrTail;
use super::{bwrap, handover, identity, reply_wait, wire};

/// How often a waiting request looks at its call's cancellation flag.
const POLL: Duration = Duration::from_millis(20);

/// How long a process that closed its pipe may take to exit before it is
/// killed, and how long its stderr may take to drain.
const GRACE: Duration = Duration::from_secs(2);

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Called (on the reader thread) when a process ends that the agent did
/// not shut down.
pub type OnCrash = Arc<dyn Fn(&str, &Ending) + Send + Sync>;

enum Event {
    /// An action the call pushed, for its own thread to push (see
    /// [`xcsh_core::push_for_running_call`]).
    Pushed {
        action: Box<PendingAction>,
        store: Arc<PendingActionStore>,
        id: u64,
    },
    Progress(Output),
    Log(LogLevel, String),
    Done(Outcome),
    Ended(Ending),
}

#[derive(Default)]
struct Waiters {
    by_id: HashMap<u64, Sender<Event>>,
    ended: Option<Ending>,
}

/// A running (or ended) process of one isolated pack.
pub struct PackProcess {
    pack: String,
    writer: Mutex<Option<BufWriter<ChildStdin>>>,
    child: Mutex<Child>,
    waiters: Mutex<Waiters>,
    next_id: AtomicU64,
    stop_reason: Mutex<Option<String>>,
    stderr: StderrTail,
    shut_down: AtomicBool,
    /// It runs under bubblewrap.
    namespaces: bool,
    /// The directories made for its sandbox, removed once it has ended.
    placeholders: Placeholders,
}

impl std::fmt::Debug for PackProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackProcess")
            .field("pack", &self.pack)
            .field("ended", &self.has_ended())
            .finish_non_exhaustive()
    }
}

impl PackProcess {
    /// Starts the process, opens the pack in it, and starts forwarding its
    /// pushes into `store`. `timeout` limits each apply and reject of its
    /// actions.
    ///
    /// # Errors
    ///
    /// One line: the process could not start, the pack failed to open
    /// (the loader's cause), or the process ended while opening it.
    pub fn start(
        spec: &StartSpec,
        store: Weak<PendingActionStore>,
        timeout: Option<Duration>,
        on_crash: OnCrash,
    ) -> Result<(Arc<Self>, Opened), String> {
        let file_name = spec
            .open
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let mut args = Vec::new();
        if spec.verbosity > 0 {
            args.push(format!("-{}", "v".repeat(usize::from(spec.verbosity))).into());
        }
        args.push(SUBCOMMAND.into());
        let placeholders = Placeholders::new();
        let (mut command, confinement) = handover::command(spec, &args, &placeholders)?;
        let namespaces = confinement.entered();
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group: Ctrl-C in a terminal stops the agent,
        // which then still reaches the pack to discard its actions.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child =
            handover::spawn(command).map_err(|e| format!("cannot start its process: {e}"))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("its process has no pipes".to_owned());
        };
        let stderr = StderrTail::start(stderr, &file_name);
        let mut writer = BufWriter::new(stdin);
        let mut reader = match SpinRead::new(stdout) {
            Ok(stdout) => BufReader::new(stdout),
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("cannot set up its reply pipe: {error}"));
            }
        };
        let mut greeted = false;
        let (handshook, stopped) = within_limit(&mut child, spec.open_limit, || {
            handshake(
                &mut writer,
                &mut reader,
                &spec.open,
                spec.frame_limit,
                &mut greeted,
            )
        });
        if let (true, Some(limit)) = (stopped, spec.open_limit) {
            let ending = finish(&mut child, &stderr, None, namespaces);
            tracing::debug!(how = %ending.how, "pack process stopped at its open limit");
            return Err(format!(
                "its process did not open the pack within {limit:?} (stopped){}",
                ending.stderr_suffix().replace('\n', " ")
            ));
        }
        let opened = match handshook {
            Ok(Ok((opened, sandbox))) => {
                match identity::recorded(opened, spec.pack.path(), sandbox, &confinement) {
                    Ok(opened) => opened,
                    Err(message) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(message);
                    }
                }
            }
            Ok(Err(message)) => {
                let _ = child.wait();
                return Err(message);
            }
            Err(error) => {
                let ending = finish(&mut child, &stderr, None, namespaces);
                tracing::debug!(%error, "pack process handshake failed");
                // Nothing of xcsh ran in the namespaces: bubblewrap itself
                // could not set them up. Start again without them (the
                // status says why), once for this agent.
                if let (true, false, Some(line)) = (namespaces, greeted, ending.stderr_tail.first())
                    && line.starts_with("bwrap: ")
                {
                    bwrap::mark_unusable(line);
                    drop(placeholders);
                    return Self::start(spec, store, timeout, on_crash);
                }
                return Err(format!(
                    "its process {} while opening the pack{}",
                    ending.how,
                    ending.stderr_suffix().replace('\n', " ")
                ));
            }
        };
        let process = Arc::new(Self {
            pack: opened.name.clone(),
            writer: Mutex::new(Some(writer)),
            child: Mutex::new(child),
            waiters: Mutex::new(Waiters::default()),
            next_id: AtomicU64::new(1),
            stop_reason: Mutex::new(None),
            stderr,
            shut_down: AtomicBool::new(false),
            namespaces,
            placeholders,
        });
        let reading = Arc::clone(&process);
        let limits = (spec.frame_limit, timeout);
        let running = Running::start();
        std::thread::Builder::new()
            .name(format!("xcsh-pack-{}", opened.name))
            .spawn(move || {
                reading.read_replies(reader, limits, &store, &on_crash);
                drop(running);
            })
            .map_err(|e| format!("cannot start a thread for its process: {e}"))?;
        Ok((process, opened))
    }

    /// The pack's name.
    pub fn pack(&self) -> &str {
        &self.pack
    }

    /// True once the process has ended (or is being stopped).
    pub fn has_ended(&self) -> bool {
        lock(&self.waiters).ended.is_some() || lock(&self.stop_reason).is_some()
    }

    /// Sends the request `make` builds with a fresh id and waits for its
    /// reply, forwarding progress to `context` and its cancellation to the
    /// process. Past `limit` the process is killed, naming `what` ran over.
    ///
    /// # Errors
    ///
    /// See [`Failure`].
    pub fn request(
        &self,
        make: impl FnOnce(u64) -> Request,
        context: Option<&ToolContext>,
        limit: Option<Duration>,
        what: &str,
    ) -> Result<Outcome, Failure> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, events) = mpsc::channel();
        {
            let mut waiters = lock(&self.waiters);
            if let Some(ending) = &waiters.ended {
                return Err(Failure::EndedBefore(ending.clone()));
            }
            waiters.by_id.insert(id, sender);
        }
        if !self.send(&make(id)) && lock(&self.writer).is_none() {
            lock(&self.waiters).by_id.remove(&id);
            return Err(Failure::EndedBefore(self.shut_down_ending()));
        }
        // A failed write means the process is going: its end arrives as an
        // event below.
        let deadline = limit.map(|limit| Instant::now() + limit);
        let mut cancel_sent = false;
        // What this request pushed: taken back if it runs over its limit,
        // as an in-process call's pushes are.
        let mut pushed = Vec::new();
        loop {
            let wait = deadline.map_or(POLL, |d| {
                d.saturating_duration_since(Instant::now()).min(POLL)
            });
            match reply_wait::next_event(&events, wait) {
                Ok(Event::Progress(partial)) => {
                    if let (Some(context), Ok(partial)) = (context, wire::output_from_wire(partial))
                    {
                        context.report_progress(&partial);
                    }
                }
                Ok(Event::Log(level, message)) => {
                    // Named as the pack opened: a line cannot name another.
                    if let Some(context) = context {
                        context.log(wire::log_level_from_wire(level), &self.pack, &message);
                    }
                }
                Ok(Event::Pushed { action, store, id }) => {
                    // On the call's own thread: accepted only while the call
                    // runs, like an in-process pack's push.
                    match xcsh_core::push_for_running_call(&store, *action) {
                        Ok(entry) => pushed.push((store, entry)),
                        Err(refused) => {
                            tracing::warn!(pack = %self.pack, "{refused}");
                            self.forget(id);
                        }
                    }
                }
                Ok(Event::Done(outcome)) => return Ok(outcome),
                Ok(Event::Ended(ending)) => return Err(Failure::Ended(ending)),
                Err(RecvTimeoutError::Timeout) => {
                    if !cancel_sent && context.is_some_and(ToolContext::is_cancelled) {
                        cancel_sent = self.send(&Request::Cancel { id });
                    }
                    if let (Some(deadline), Some(limit)) = (deadline, limit)
                        && Instant::now() >= deadline
                    {
                        self.stop(format!("{what} timed out after {limit:?}"));
                        self.take_back(&pushed);
                        // Wait for the reader to see the end, so the next
                        // request finds the process gone and starts anew.
                        let _ = events.recv_timeout(GRACE);
                        return Err(Failure::TimedOut(limit));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Failure::Ended(self.shut_down_ending()));
                }
            }
        }
    }

    /// Hands a pushed action to the call that pushed it. A push from no
    /// call, or from a call no longer waited for (returned, timed out), is
    /// refused, as in-process: the process drops the action.
    fn deliver_push(
        self: &Arc<Self>,
        pushed: PushedAction,
        store: &Weak<PendingActionStore>,
        timeout: Option<Duration>,
    ) {
        let id = pushed.action;
        let waiter = pushed
            .call
            .and_then(|call| lock(&self.waiters).by_id.get(&call).cloned());
        let (Some(waiter), Some(store)) = (waiter, store.upgrade()) else {
            tracing::warn!(pack = %self.pack, "{}", xcsh_core::PUSH_OUTSIDE_CALL);
            self.forget(id);
            return;
        };
        match remote_action::adapt(Arc::clone(self) as Arc<dyn ActionHost>, pushed, timeout) {
            Ok(action) => {
                let event = Event::Pushed {
                    action: Box::new(action),
                    store,
                    id,
                };
                if waiter.send(event).is_err() {
                    self.forget(id);
                }
            }
            Err(error) => {
                tracing::warn!(pack = %self.pack, %error, "dropped a pushed action");
                self.forget(id);
            }
        }
    }

    /// Removes from their stores the actions a request that ran over its
    /// limit pushed, each said as a warning.
    fn take_back(&self, pushed: &[(Arc<PendingActionStore>, u64)]) {
        for (store, entry) in pushed {
            if let Some(entry) = store.remove(*entry) {
                tracing::warn!(
                    pack = %self.pack,
                    "Took back \"{}\": the call that pushed it timed out",
                    entry.action().label()
                );
            }
        }
    }

    /// Tells the process to drop action `action` (no reply).
    pub fn forget(&self, action: u64) {
        if !self.has_ended() {
            self.send(&Request::Forget { action });
        }
    }

    /// Kills the process, recording why (the first reason wins).
    pub fn stop(&self, reason: String) {
        tracing::warn!(pack = %self.pack, "stopping the pack's process: {reason}");
        lock(&self.stop_reason).get_or_insert(reason);
        let _ = lock(&self.child).kill();
    }

    /// Closes the request pipe: the process exits on its own. Not a crash.
    pub fn shut_down(&self) {
        self.shut_down.store(true, Ordering::Release);
        lock(&self.writer).take();
    }

    fn shut_down_ending(&self) -> Ending {
        Ending {
            how: "was shut down".to_owned(),
            stopped_by_host: None,
            stderr_tail: Vec::new(),
        }
    }

    /// Writes one request; false if the pipe is closed or broken.
    fn send(&self, request: &Request) -> bool {
        let mut writer = lock(&self.writer);
        let Some(out) = writer.as_mut() else {
            return false;
        };
        frame::write(out, request)
            .and_then(|()| out.flush().map_err(FrameError::from))
            .is_ok()
    }

    /// The reader thread: replies to their waiters, pushes into the
    /// store, and at the end, how the process ended to everyone waiting.
    /// Frames longer than `frame_limit` (the first of `limits`), and any
    /// frame that is not a valid reply, stop the process as a protocol
    /// violation; `timeout` (the second) limits applies and rejects.
    fn read_replies(
        self: Arc<Self>,
        mut reader: BufReader<SpinRead<ChildStdout>>,
        (frame_limit, timeout): (usize, Option<Duration>),
        store: &Weak<PendingActionStore>,
        on_crash: &OnCrash,
    ) {
        let mut buffer = Vec::new();
        loop {
            match frame::read_within::<Reply>(&mut reader, &mut buffer, frame_limit) {
                Ok(Some(Reply::Pushed(pushed))) => self.deliver_push(pushed, store, timeout),
                Ok(Some(Reply::Progress { id, output })) => {
                    if let Some(waiter) = lock(&self.waiters).by_id.get(&id) {
                        let _ = waiter.send(Event::Progress(output));
                    }
                }
                Ok(Some(Reply::Log { id, level, message })) => {
                    if let Some(waiter) = lock(&self.waiters).by_id.get(&id) {
                        let _ = waiter.send(Event::Log(level, message));
                    }
                }
                Ok(Some(Reply::Done { id, outcome })) => {
                    if let Some(waiter) = lock(&self.waiters).by_id.remove(&id) {
                        let _ = waiter.send(Event::Done(outcome));
                    }
                }
                Ok(Some(Reply::Opened(_) | Reply::OpenFailed { .. } | Reply::Sandboxed(_))) => {
                    self.stop("sent an invalid message: a second reply to opening the pack".into());
                    break;
                }
                Ok(None) => break,
                Err(error @ (FrameError::Io(_) | FrameError::Truncated)) => {
                    tracing::warn!(pack = %self.pack, %error, "broken pipe to the pack's process");
                    break;
                }
                Err(error) => {
                    self.stop(format!("sent an invalid message: {error}"));
                    break;
                }
            }
        }
        let stop_reason = lock(&self.stop_reason).clone();
        let ending = finish(
            &mut lock(&self.child),
            &self.stderr,
            stop_reason,
            self.namespaces,
        );
        self.placeholders.remove_all();
        let crashed = !self.shut_down.load(Ordering::Acquire);
        // Count the crash before anyone waiting hears of it, so their next
        // call sees the pack disabled if this was one crash too many.
        if crashed {
            on_crash(&self.pack, &ending);
        }
        let waiting = {
            let mut waiters = lock(&self.waiters);
            waiters.ended = Some(ending.clone());
            std::mem::take(&mut waiters.by_id)
        };
        for waiter in waiting.into_values() {
            let _ = waiter.send(Event::Ended(ending.clone()));
        }
    }
}

/// The hello each way, then the open request, the sandbox it entered
/// (reported before the pack's code ran) and the pack opened. The outer
/// error is a broken pipe; the inner one the pack's own failure to open.
/// `greeted` is set once the process's hello arrived (xcsh runs in it).
fn handshake(
    writer: &mut BufWriter<ChildStdin>,
    reader: &mut BufReader<SpinRead<ChildStdout>>,
    open: &OpenPack,
    limit: usize,
    greeted: &mut bool,
) -> Result<Result<(Opened, SandboxStatus), String>, FrameError> {
    let mut buffer = Vec::new();
    frame::write(writer, &Hello::current())?;
    frame::write(writer, &Request::Open(open.clone()))?;
    writer.flush()?;
    let hello: Hello = frame::read(reader, &mut buffer)?.ok_or(FrameError::Truncated)?;
    *greeted = true;
    if !Hello::current().is_compatible_with(&hello) {
        return Ok(Err(format!(
            "its process speaks isolation protocol {}, this xcsh {}",
            hello.version,
            Hello::current().version
        )));
    }
    let sandbox = match frame::read_within(reader, &mut buffer, limit)? {
        Some(Reply::Sandboxed(sandbox)) => sandbox,
        Some(Reply::OpenFailed { message }) => return Ok(Err(message)),
        Some(_) => return Ok(Err("its process answered out of turn".to_owned())),
        None => return Err(FrameError::Truncated),
    };
    match frame::read_within(reader, &mut buffer, limit)? {
        Some(Reply::Opened(opened)) => Ok(Ok((opened, sandbox))),
        Some(Reply::OpenFailed { message }) => Ok(Err(message)),
        Some(_) => Ok(Err("its process answered out of turn".to_owned())),
        None => Err(FrameError::Truncated),
    }
}

/// Runs `work` while a watchdog kills `child` if `work` is not done
/// within `limit` (no watchdog without a limit); says whether it killed it.
fn within_limit<R>(
    child: &mut Child,
    limit: Option<Duration>,
    work: impl FnOnce() -> R,
) -> (R, bool) {
    let Some(limit) = limit else {
        return (work(), false);
    };
    std::thread::scope(|scope| {
        let (done, wait) = mpsc::channel::<()>();
        let watchdog = scope.spawn(move || {
            let late = matches!(wait.recv_timeout(limit), Err(RecvTimeoutError::Timeout));
            if late {
                let _ = child.kill();
            }
            late
        });
        let result = work();
        drop(done);
        (result, watchdog.join().unwrap_or(true))
    })
}

/// Waits for a process whose pipe closed (killing it if it lingers), then
/// describes its end with its last stderr lines (reading the exit status
/// as bubblewrap reports a signal when it ran in `namespaces`).
fn finish(
    child: &mut Child,
    stderr: &StderrTail,
    stop_reason: Option<String>,
    namespaces: bool,
) -> Ending {
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < GRACE => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                let _ = child.kill();
                break child.wait().ok();
            }
            Err(_) => break None,
        }
    };
    let mut ending = match status {
        Some(status) if namespaces => Ending::from_bubblewrap_status(status),
        Some(status) => Ending::from_status(status),
        None => Ending {
            how: "ended".to_owned(),
            stopped_by_host: None,
            stderr_tail: Vec::new(),
        },
    };
    ending.stopped_by_host = stop_reason;
    ending.stderr_tail = stderr.lines(GRACE);
    ending
}

impl ActionHost for PackProcess {
    fn pack(&self) -> &str {
        &self.pack
    }

    fn request(
        &self,
        make: &dyn Fn(u64) -> Request,
        limit: Option<Duration>,
        what: &str,
    ) -> Result<Outcome, Failure> {
        Self::request(self, make, None, limit, what)
    }

    fn forget(&self, action: u64) {
        Self::forget(self, action);
    }
}
