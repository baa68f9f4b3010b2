//! Driving a session from a front end that reads calls one after another.
//!
//! Run one at a time ([`Session::execute`]), each limited call goes to a
//! worker thread and the caller waits for it: two thread hand-offs per
//! call. [`drive`] turns that around for a front end that owns its loop
//! (`xcsh run`): the loop and every call run on one session thread, and
//! the caller's thread becomes the watchdog. When a call passes the limit, the watchdog takes
//! back what the call pushed, sets its cancellation flag, hands the
//! timeout result to the front end on a fresh session thread, and the
//! stuck thread is abandoned: it ends when its call returns, if ever, and
//! its late result is dropped. A call costs two uncontended mutex
//! operations and no thread hand-off.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use xcsh_tool_types::sync::lock;

use crate::call::RunningCall;
use crate::call_run::one_call::run_one;
use crate::call_run::prepared::{LimitedBy, PreparedCall, finish, time_out};
use crate::call_run::runner::{Failure, WORKER_STACK_BYTES};
use crate::call_run::watchdog::{Event, Watchdog};
use crate::cancel::CancellationToken;
use crate::output::ToolResult;
use crate::panic::catch;
use crate::session::Session;
use crate::tool::ToolCall;
use crate::tool::ToolContext;

/// A front end's side of [`drive`]: where the calls come from and
/// where their results go.
///
/// Both methods run on a session thread, never two at once; the value
/// moves to a fresh thread when a call times out, so it is `Send`.
pub trait Turns: Send + 'static {
    /// The next call to run and its context; `None` ends the drive.
    fn next_call(&mut self, session: &Session) -> Option<(ToolCall, ToolContext)>;

    /// The result of the call [`next_call`](Self::next_call) gave last,
    /// with the session as that call left it.
    fn take_result(&mut self, session: &Session, result: ToolResult);
}

/// What a session thread parks with the watchdog while a call runs.
struct Parked<T> {
    turns: T,
    call: RunningCall,
    name: String,
    cancellation: CancellationToken,
    limit: Duration,
}

/// How a drive ended: the front end back, or its panic.
type Ended<T> = std::thread::Result<T>;

type Dog<T> = Watchdog<Parked<T>, Ended<T>>;

/// Runs every call `turns` gives in `session`, each under the session's
/// limits, handing each result back, until [`Turns::next_call`] gives
/// `None`; returns `turns`.
///
/// Results are those of [`Session::execute_with`], timeouts and panics
/// included; a call past the limit is abandoned at the limit and the drive
/// goes on. A panic in `turns` itself ends the drive and is resumed on the
/// caller's thread.
///
/// ```
/// use std::sync::Arc;
/// use serde_json::json;
/// use xcsh_core::{Session, ToolCall, ToolContext, ToolResult, Turns};
///
/// /// Calls `resolve` once and keeps its answer.
/// struct Once(Option<String>);
///
/// impl Turns for Once {
///     fn next_call(&mut self, session: &Session) -> Option<(ToolCall, ToolContext)> {
///         if self.0.is_some() {
///             return None;
///         }
///         let call = ToolCall::new("1", "resolve", json!({"action": "apply", "reason": "ok"}));
///         let context = ToolContext::new("1", session.cwd().to_path_buf());
///         Some((call, context))
///     }
///
///     fn take_result(&mut self, _: &Session, result: ToolResult) {
///         self.0 = Some(result.text());
///     }
/// }
///
/// let session = Arc::new(Session::new(std::env::temp_dir()));
/// let once = xcsh_core::drive(&session, Once(None));
/// assert_eq!(
///     once.0.as_deref(),
///     Some("No pending action to resolve. Nothing to apply or discard.")
/// );
/// ```
pub fn drive<T: Turns>(session: &Arc<Session>, turns: T) -> T {
    let Some(limit) = session.limits().time else {
        return drive_here(session, turns, None);
    };
    let dog: Arc<Dog<T>> = Arc::default();
    let mut started = start_thread(session, &dog, turns, None);
    loop {
        if let Err((turns, result)) = started {
            // No thread could start: the calls run as `execute` runs them,
            // on workers, still under the limit.
            return drive_here(session, turns, result);
        }
        match dog.next_event(limit) {
            Event::Ended(Ok(turns)) => return turns,
            Event::Ended(Err(panic)) => resume_unwind(panic),
            Event::Expired(parked) => started = expire(session, &dog, parked),
        }
    }
}

/// Ends the call that `parked` ran as a timeout and goes on with a fresh
/// session thread.
fn expire<T: Turns>(
    session: &Arc<Session>,
    dog: &Arc<Dog<T>>,
    parked: Parked<T>,
) -> Result<(), (T, Option<ToolResult>)> {
    let Parked {
        turns,
        call,
        name,
        cancellation,
        limit,
    } = parked;
    let result = time_out(&**session, &name, &cancellation, Some(&call), limit);
    start_thread(session, dog, turns, Some(result))
}

/// The drive on this thread, each call as [`Session::execute`] runs it,
/// first handing over `result` if there is one.
fn drive_here<T: Turns>(session: &Session, mut turns: T, result: Option<ToolResult>) -> T {
    if let Some(result) = result {
        turns.take_result(session, result);
    }
    while let Some((call, context)) = turns.next_call(session) {
        let result = run_one(session, call, context);
        turns.take_result(session, result);
    }
    turns
}

/// Starts a session thread that runs the drive, first handing over
/// `result`; what it was given comes back if the thread cannot start.
fn start_thread<T: Turns>(
    session: &Arc<Session>,
    dog: &Arc<Dog<T>>,
    turns: T,
    result: Option<ToolResult>,
) -> Result<(), (T, Option<ToolResult>)> {
    let given = Arc::new(Mutex::new(Some((turns, result))));
    let (session_in, dog_in, given_in) = (Arc::clone(session), Arc::clone(dog), Arc::clone(&given));
    let started = std::thread::Builder::new()
        .name("xcsh-session".to_owned())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(move || {
            let Some((turns, result)) = lock(&given_in).take() else {
                return;
            };
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                drive_thread(&session_in, &dog_in, turns, result)
            }));
            match outcome {
                Ok(Some(turns)) => dog_in.end(Ok(turns)),
                // Abandoned at a timeout: the drive went on elsewhere.
                Ok(None) => {}
                Err(panic) => dog_in.end(Err(panic)),
            }
        });
    match started {
        Ok(_) => Ok(()),
        Err(error) => {
            tracing::warn!("cannot start a session thread ({error}); calls run on workers");
            Err(lock(&given)
                .take()
                .expect("a thread that did not start took nothing"))
        }
    }
}

/// The drive on a session thread; `None` once this thread was abandoned.
fn drive_thread<T: Turns>(
    session: &Session,
    dog: &Dog<T>,
    mut turns: T,
    result: Option<ToolResult>,
) -> Option<T> {
    if let Some(result) = result {
        turns.take_result(session, result);
    }
    while let Some((call, context)) = turns.next_call(session) {
        let result = match PreparedCall::new(session, call, context) {
            Err(refused) => refused,
            Ok(prepared) => match (prepared.limited_by, session.limits().time) {
                (LimitedBy::Session, Some(limit)) => {
                    let (result, back) = run_watched(session, dog, prepared, limit, turns)?;
                    turns = back;
                    result
                }
                _ => prepared.run_here(session),
            },
        };
        turns.take_result(session, result);
    }
    Some(turns)
}

/// Runs `prepared` on this thread with `turns` parked on the watchdog;
/// `None` if the watchdog took them at the limit.
fn run_watched<T: Turns>(
    session: &Session,
    dog: &Dog<T>,
    prepared: PreparedCall,
    limit: Duration,
    turns: T,
) -> Option<(ToolResult, T)> {
    let PreparedCall {
        name,
        tool,
        arguments,
        context,
        ..
    } = prepared;
    let call = RunningCall::default();
    let entered = call.enter();
    let ticket = dog.arm(
        Instant::now() + limit,
        Parked {
            turns,
            call: call.clone(),
            name,
            cancellation: context.cancellation().clone(),
            limit,
        },
    );
    let outcome = catch(|| tool.execute(arguments, &context)).map_err(Failure::Panicked);
    // Disarmed before the call ends, so a push the watchdog did not take
    // back is one this thread will see in `finish`.
    let parked = dog.disarm(ticket)?;
    let pushed = call.finish();
    drop(entered);
    let result = finish(
        session,
        &parked.name,
        context.cancellation(),
        outcome,
        &pushed,
    );
    Some((result, parked.turns))
}

#[cfg(test)]
mod tests;
