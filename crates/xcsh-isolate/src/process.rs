//! One running process of an isolated pack, seen from the agent: the
//! handshake, requests and their replies, pushes into the session's store,
//! and how the process ended.
//!
//! Who reads the reply pipe: whoever holds its lock, the *leader*. A
//! request takes the lock if it is free and reads its own reply, as the
//! pipe floor does (two wake-ups per round trip, where a reader thread
//! handing each reply on made three: a `noop` call under load measured
//! about 5× the floor that way; BENCHMARKS-history.md §10b). Frames for other
//! requests go to them over their channels; a leader whose request is done
//! hands the lead to a request still waiting ([`Event::Lead`]). While no
//! request has been out for [`IDLE`], a watcher thread reads the pipe, so
//! that a push from no call, or the process's end, is seen at once.

use std::collections::HashMap;
use std::io::{BufRead as _, BufReader, BufWriter, Write as _};
use std::os::fd::{AsFd as _, OwnedFd};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use xcsh_core::sync::lock;
use xcsh_core::{PendingAction, PendingActionStore, ToolContext};
use xcsh_isolate_pipe::SpinRead;
use xcsh_isolate_protocol::{
    FrameError, Hello, LogLevel, NAMESPACES_FAILED, OpenPack, Opened, Outcome, Output,
    PushedAction, Reply, Request, SUBCOMMAND, SandboxStatus, convert, error_line, frame,
};

use super::ending::Ending;
use super::ending::Failure;
use super::placeholders::Placeholders;
use super::remote_action::{self, ActionHost};
use super::running::Running;
use super::start_error::StartError;
use super::start_spec::StartSpec;
use super::stderr_tail::StderrTail;
use super::{handover, identity, namespaces, reply_wait};

/// How often a waiting request looks at its call's cancellation flag.
const POLL: Duration = Duration::from_millis(20);

/// How long a process that closed its pipe may take to exit before it is
/// killed, and how long its stderr may take to drain.
const GRACE: Duration = Duration::from_secs(2);

/// How long after the last request the watcher thread starts reading the
/// pipe again (it looks this often while requests come).
const IDLE: Duration = Duration::from_millis(10);

/// Called (on the thread that finds the pipe ended: a request or the
/// watcher) when a process ends that the agent did not shut down.
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
    /// The pipe's lock was let go while this request waited: take it.
    Lead,
}

#[derive(Default)]
struct Waiters {
    by_id: HashMap<u64, Sender<Event>>,
    ended: Option<Ending>,
    /// When the last request ended.
    last_done: Option<Instant>,
}

/// The reply pipe and the buffer its frames are read into.
struct Replies {
    pipe: BufReader<SpinRead<ChildStdout>>,
    buffer: Vec<u8>,
}

/// What reading at most one frame gave.
enum Step {
    /// A frame, handed to its request.
    Frame,
    /// Nothing before the time given.
    NotYet,
    /// The pipe ended (or broke); the end has been told to everyone.
    Ended,
}

/// A running (or ended) process of one isolated pack.
pub struct PackProcess {
    pack: String,
    /// This process, for the actions it pushes.
    me: Weak<Self>,
    writer: Mutex<Option<BufWriter<ChildStdin>>>,
    /// The reply pipe; its holder is the leader (see the module's doc).
    replies: Mutex<Replies>,
    /// The reply pipe again, for the watcher to sleep on without the lock.
    watched: OwnedFd,
    /// Where pushed actions go.
    store: Weak<PendingActionStore>,
    /// The longest frame the process may send.
    frame_limit: usize,
    /// The limit of each apply and reject of its actions.
    action_timeout: Option<Duration>,
    /// Told once if the process ends without being shut down.
    on_crash: Mutex<Option<OnCrash>>,
    /// Its end is being (or has been) seen to.
    ending: AtomicBool,
    child: Mutex<Child>,
    waiters: Mutex<Waiters>,
    next_id: AtomicU64,
    stop_reason: Mutex<Option<String>>,
    stderr: StderrTail,
    shut_down: AtomicBool,
    /// It runs in namespaces of its own.
    namespaces: bool,
    /// The directories made for its sandbox, removed once it has ended.
    placeholders: Placeholders,
    /// Counts it among the agent's running pack processes until
    /// [`end`](Self::end) has cleaned up after it (or it is dropped).
    running: Mutex<Option<Running>>,
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
    /// The process could not start, the pack failed to open (the loader's
    /// cause), or the process ended while opening it.
    pub fn start(
        spec: &StartSpec,
        store: Weak<PendingActionStore>,
        timeout: Option<Duration>,
        on_crash: OnCrash,
    ) -> Result<(Arc<Self>, Opened), StartError> {
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
        let mut child = handover::spawn(command).map_err(StartError::Spawn)?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(StartError::NoPipes);
        };
        let stderr = StderrTail::start(stderr, &file_name);
        let mut writer = BufWriter::new(stdin);
        let mut reader = match SpinRead::new(stdout) {
            Ok(stdout) => BufReader::new(stdout),
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(StartError::ReplyPipe(error));
            }
        };
        let mut greeted = false;
        // The process is told whether it runs in namespaces: without
        // them it refuses itself what only their read-only mounts confine.
        let mut open = spec.open.clone();
        open.sandbox.in_namespaces = namespaces;
        let (handshook, stopped) = within_limit(&mut child, spec.open_limit, || {
            handshake(
                &mut writer,
                &mut reader,
                &open,
                spec.frame_limit,
                &mut greeted,
            )
        });
        if let (true, Some(limit)) = (stopped, spec.open_limit) {
            let ending = finish(&mut child, &stderr, None, namespaces);
            tracing::debug!(how = %ending.how, "pack process stopped at its open limit");
            return Err(StartError::OpenTimedOut { limit, ending });
        }
        let opened = match handshook {
            Ok(Ok((opened, sandbox))) => {
                match identity::recorded(opened, spec.pack.path(), sandbox, &confinement) {
                    Ok(opened) => opened,
                    Err(error) => {
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(error);
                    }
                }
            }
            Ok(Err(error)) => {
                let _ = child.wait();
                return Err(error);
            }
            Err(error) => {
                let ending = finish(&mut child, &stderr, None, namespaces);
                tracing::debug!(%error, "pack process handshake failed");
                // Nothing of xcsh ran in the namespaces: they could not be
                // set up. Start again without them (the status says why),
                // once for this agent.
                if let (true, false, Some(line)) = (namespaces, greeted, ending.stderr_tail.first())
                    && (line.starts_with(NAMESPACES_FAILED) || line.starts_with("bwrap: "))
                {
                    namespaces::mark_unusable(line);
                    drop(placeholders);
                    return Self::start(spec, store, timeout, on_crash);
                }
                return Err(StartError::EndedOpening { ending });
            }
        };
        let watched = match reader.get_ref().as_fd().try_clone_to_owned() {
            Ok(watched) => watched,
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(StartError::ReplyPipe(error));
            }
        };
        let process = Arc::new_cyclic(|me| Self {
            pack: opened.name.clone(),
            me: me.clone(),
            writer: Mutex::new(Some(writer)),
            replies: Mutex::new(Replies {
                pipe: reader,
                buffer: Vec::new(),
            }),
            watched,
            store,
            frame_limit: spec.frame_limit,
            action_timeout: timeout,
            on_crash: Mutex::new(Some(on_crash)),
            ending: AtomicBool::new(false),
            child: Mutex::new(child),
            waiters: Mutex::new(Waiters::default()),
            next_id: AtomicU64::new(1),
            stop_reason: Mutex::new(None),
            stderr,
            shut_down: AtomicBool::new(false),
            namespaces,
            placeholders,
            running: Mutex::new(Some(Running::start())),
        });
        let watching = Arc::clone(&process);
        if let Err(error) = std::thread::Builder::new()
            .name(format!("xcsh-pack-{}", opened.name))
            .spawn(move || watching.watch())
        {
            let error = StartError::Thread(error);
            process.stop(error_line(&error));
            return Err(error);
        }
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
    pub(crate) fn request(
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
        // Taken before the request goes out, so that its reply finds this
        // thread reading.
        let mut lead = self.try_lead();
        if !self.send(&make(id)) && lock(&self.writer).is_none() {
            let led = lead.is_some();
            drop(lead);
            self.request_done(id);
            if led {
                self.hand_lead();
            }
            return Err(Failure::EndedBefore(self.shut_down_ending()));
        }
        // A failed write means the process is going: its end arrives as an
        // event below.
        let deadline = limit.map(|limit| Instant::now() + limit);
        let mut cancel_sent = false;
        // What this request pushed: taken back if it runs over its limit,
        // as an in-process call's pushes are.
        let mut pushed = Vec::new();
        // Since when this request, past its limit, waits for the process
        // it stopped to end (so that the next request starts a new one).
        let mut timed_out: Option<(Instant, Duration)> = None;
        let result = loop {
            let (wait, frame_deadline) = match (timed_out, deadline) {
                (Some((since, _)), _) => (POLL, Some(since + GRACE)),
                (None, None) => (POLL, None),
                (None, Some(d)) => (
                    d.saturating_duration_since(Instant::now()).min(POLL),
                    deadline,
                ),
            };
            let next = match lead.as_mut() {
                Some(replies) => match events.try_recv() {
                    Ok(event) => Ok(event),
                    Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
                    Err(TryRecvError::Empty) => {
                        match self.read_one(replies, Instant::now() + wait, frame_deadline) {
                            // Its events, this request's included, are in
                            // the channels now.
                            Step::Frame => continue,
                            Step::NotYet => Err(RecvTimeoutError::Timeout),
                            Step::Ended => {
                                lead = None;
                                continue;
                            }
                        }
                    }
                },
                None => reply_wait::next_event(&events, wait),
            };
            match next {
                Ok(Event::Lead) => {
                    if lead.is_none() {
                        lead = self.try_lead();
                    }
                }
                Ok(Event::Progress(partial)) => {
                    if let (Some(context), Ok(partial)) =
                        (context, convert::output_from_wire(partial))
                    {
                        context.report_progress(&partial);
                    }
                }
                Ok(Event::Log(level, message)) => {
                    // Named as the pack opened: a line cannot name another.
                    if let Some(context) = context {
                        context.log(convert::log_level_from_wire(level), &self.pack, &message);
                    }
                }
                Ok(Event::Pushed { action, store, id }) => {
                    // On the call's own thread: accepted only while the call
                    // runs, like an in-process pack's push.
                    match xcsh_core::push_for_running_call(&store, *action) {
                        Ok(entry) if timed_out.is_none() => pushed.push((store, entry)),
                        Ok(entry) => {
                            self.take_back(&[(store, entry)]);
                        }
                        Err(refused) => {
                            tracing::warn!(pack = %self.pack, "{refused}");
                            self.forget(id);
                        }
                    }
                }
                Ok(Event::Done(outcome)) => match timed_out {
                    None => break Ok(outcome),
                    Some((_, limit)) => break Err(Failure::TimedOut(limit)),
                },
                Ok(Event::Ended(ending)) => match timed_out {
                    None => break Err(Failure::Ended(ending)),
                    Some((_, limit)) => break Err(Failure::TimedOut(limit)),
                },
                Err(RecvTimeoutError::Timeout) => {
                    if let Some((since, limit)) = timed_out {
                        if since.elapsed() >= GRACE {
                            break Err(Failure::TimedOut(limit));
                        }
                        continue;
                    }
                    if !cancel_sent && context.is_some_and(ToolContext::is_cancelled) {
                        cancel_sent = self.send(&Request::Cancel { id });
                    }
                    if let (Some(deadline), Some(limit)) = (deadline, limit)
                        && Instant::now() >= deadline
                    {
                        self.stop(format!("{what} timed out after {limit:?}"));
                        self.take_back(&pushed);
                        // Wait for the process's end to be seen, so the next
                        // request finds the process gone and starts anew.
                        timed_out = Some((Instant::now(), limit));
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    break Err(Failure::Ended(self.shut_down_ending()));
                }
            }
        };
        let led = lead.is_some();
        drop(lead);
        self.request_done(id);
        // A lead handed to this request and not taken goes on too.
        if led || events.try_iter().any(|event| matches!(event, Event::Lead)) {
            self.hand_lead();
        }
        result
    }

    /// The reply pipe's lock, if no one holds it.
    fn try_lead(&self) -> Option<MutexGuard<'_, Replies>> {
        match self.replies.try_lock() {
            Ok(replies) => Some(replies),
            Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        }
    }

    /// Forgets request `id`'s waiter and notes when it ended.
    fn request_done(&self, id: u64) {
        let mut waiters = lock(&self.waiters);
        waiters.by_id.remove(&id);
        waiters.last_done = Some(Instant::now());
    }

    /// After the pipe's lock was let go: tells one waiting request to
    /// take it (the watcher reads only once no request is out).
    fn hand_lead(&self) {
        if let Some(waiter) = lock(&self.waiters).by_id.values().next() {
            let _ = waiter.send(Event::Lead);
        }
    }

    /// True while a request is out or one ended within [`IDLE`].
    fn busy(&self) -> bool {
        let waiters = lock(&self.waiters);
        !waiters.by_id.is_empty() || waiters.last_done.is_some_and(|at| at.elapsed() < IDLE)
    }

    /// Hands a pushed action to the call that pushed it. A push from no
    /// call, or from a call no longer waited for (returned, timed out), is
    /// refused, as in-process: the process drops the action.
    fn deliver_push(&self, pushed: PushedAction) {
        let id = pushed.action;
        let waiter = pushed
            .call
            .and_then(|call| lock(&self.waiters).by_id.get(&call).cloned());
        let (Some(waiter), Some(store), Some(me)) =
            (waiter, self.store.upgrade(), self.me.upgrade())
        else {
            tracing::warn!(pack = %self.pack, "{}", xcsh_core::PUSH_OUTSIDE_CALL);
            self.forget(id);
            return;
        };
        match remote_action::adapt(me as Arc<dyn ActionHost>, pushed, self.action_timeout) {
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
    pub(crate) fn forget(&self, action: u64) {
        if !self.has_ended() {
            self.send(&Request::Forget { action });
        }
    }

    /// Kills the process, recording why (the first reason wins).
    pub(crate) fn stop(&self, reason: String) {
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

    /// The watcher thread: reads the pipe while no request is out (a
    /// request reads its own replies), until the process has ended.
    fn watch(&self) {
        while !self.ending.load(Ordering::Acquire) {
            if self.busy() {
                std::thread::sleep(IDLE);
                continue;
            }
            if !self.sleep_until_readable() {
                break;
            }
            let Some(mut replies) = self.try_lead() else {
                // A request reads it.
                std::thread::sleep(IDLE);
                continue;
            };
            // Whatever is there now, and no more: a request may come.
            while let Step::Frame = self.read_one(&mut replies, Instant::now(), None) {}
            drop(replies);
            self.hand_lead();
        }
    }

    /// Sleeps until the reply pipe has bytes or has ended; false if it
    /// cannot be waited on (then the end is seen by the next request).
    fn sleep_until_readable(&self) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        let mut fds = [PollFd::new(self.watched.as_fd(), PollFlags::POLLIN)];
        loop {
            match poll(&mut fds, PollTimeout::NONE) {
                Ok(_) => return true,
                Err(nix::errno::Errno::EINTR) => {}
                Err(error) => {
                    tracing::warn!(pack = %self.pack, %error, "cannot wait on the pack's reply pipe");
                    return false;
                }
            }
        }
    }

    /// Reads one frame if one starts by `until`, and hands it to its
    /// request; the rest of a frame that started may take until
    /// `deadline` (a request's limit; `None`: as long as it takes). At the
    /// pipe's end, sees to the process's end. Frames longer than the frame
    /// limit, and any frame that is not a valid reply, stop the process as
    /// a protocol violation.
    fn read_one(&self, replies: &mut Replies, until: Instant, deadline: Option<Instant>) -> Step {
        replies.pipe.get_mut().set_deadline(Some(until));
        match replies.pipe.fill_buf() {
            Ok([]) => {
                self.end();
                return Step::Ended;
            }
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::TimedOut => return Step::NotYet,
            Err(error) => {
                tracing::warn!(pack = %self.pack, %error, "broken pipe to the pack's process");
                self.end();
                return Step::Ended;
            }
        }
        replies.pipe.get_mut().set_deadline(deadline);
        let Replies { pipe, buffer } = replies;
        let reply = match frame::read_within::<Reply>(pipe, buffer, self.frame_limit) {
            Ok(Some(reply)) => reply,
            Ok(None) => {
                self.end();
                return Step::Ended;
            }
            // Past the request's limit within a frame: the request stops
            // the process (what is left of the frame is not read).
            Err(FrameError::Io(error)) if error.kind() == std::io::ErrorKind::TimedOut => {
                return Step::NotYet;
            }
            Err(error @ (FrameError::Io(_) | FrameError::Truncated)) => {
                tracing::warn!(pack = %self.pack, %error, "broken pipe to the pack's process");
                self.end();
                return Step::Ended;
            }
            Err(error) => {
                self.stop(format!("sent an invalid message: {error}"));
                self.end();
                return Step::Ended;
            }
        };
        match reply {
            Reply::Pushed(pushed) => self.deliver_push(pushed),
            Reply::Progress { id, output } => {
                if let Some(waiter) = lock(&self.waiters).by_id.get(&id) {
                    let _ = waiter.send(Event::Progress(output));
                }
            }
            Reply::Log { id, level, message } => {
                if let Some(waiter) = lock(&self.waiters).by_id.get(&id) {
                    let _ = waiter.send(Event::Log(level, message));
                }
            }
            Reply::Done { id, outcome } => {
                if let Some(waiter) = lock(&self.waiters).by_id.remove(&id) {
                    let _ = waiter.send(Event::Done(outcome));
                }
            }
            Reply::Opened(_) | Reply::OpenFailed { .. } | Reply::Sandboxed(_) => {
                self.stop("sent an invalid message: a second reply to opening the pack".into());
                self.end();
                return Step::Ended;
            }
        }
        Step::Frame
    }

    /// Sees to the process's end once: waits for it, removes its sandbox's
    /// directories, counts a crash, and tells everyone waiting how it
    /// ended.
    fn end(&self) {
        if self.ending.swap(true, Ordering::AcqRel) {
            return;
        }
        let stop_reason = lock(&self.stop_reason).clone();
        let ending = finish(
            &mut lock(&self.child),
            &self.stderr,
            stop_reason,
            self.namespaces,
        );
        self.placeholders.remove_all();
        let on_crash = lock(&self.on_crash).take();
        // Count the crash before anyone waiting hears of it, so their next
        // call sees the pack disabled if this was one crash too many.
        if let (false, Some(on_crash)) = (self.shut_down.load(Ordering::Acquire), on_crash) {
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
        // Counted as running until here, whichever thread ended it: the
        // agent's last wait then sees the placeholders removed.
        lock(&self.running).take();
    }
}

/// The hello each way, then the open request, the sandbox it entered
/// (reported before the pack's code ran) and the pack opened. The outer
/// error is a broken pipe; the inner one the pack's own failure to open
/// (or a process that speaks another protocol, or out of turn).
/// `greeted` is set once the process's hello arrived (xcsh runs in it).
fn handshake(
    writer: &mut BufWriter<ChildStdin>,
    reader: &mut BufReader<SpinRead<ChildStdout>>,
    open: &OpenPack,
    limit: usize,
    greeted: &mut bool,
) -> Result<Result<(Opened, SandboxStatus), StartError>, FrameError> {
    let mut buffer = Vec::new();
    frame::write(writer, &Hello::current())?;
    frame::write(writer, &Request::Open(open.clone()))?;
    writer.flush()?;
    let hello: Hello = frame::read(reader, &mut buffer)?.ok_or(FrameError::Truncated)?;
    *greeted = true;
    if !Hello::current().is_compatible_with(&hello) {
        return Ok(Err(StartError::Protocol {
            theirs: hello.version,
            ours: Hello::current().version,
        }));
    }
    let sandbox = match frame::read_within(reader, &mut buffer, limit)? {
        Some(Reply::Sandboxed(sandbox)) => sandbox,
        Some(Reply::OpenFailed { message }) => return Ok(Err(StartError::OpenFailed(message))),
        Some(_) => return Ok(Err(StartError::OutOfTurn)),
        None => return Err(FrameError::Truncated),
    };
    match frame::read_within(reader, &mut buffer, limit)? {
        Some(Reply::Opened(opened)) => Ok(Ok((opened, sandbox))),
        Some(Reply::OpenFailed { message }) => Ok(Err(StartError::OpenFailed(message))),
        Some(_) => Ok(Err(StartError::OutOfTurn)),
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
/// as the namespaces' first process reports a signal when it ran in
/// `namespaces`).
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
        Some(status) if namespaces => Ending::from_namespaces_status(status),
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
