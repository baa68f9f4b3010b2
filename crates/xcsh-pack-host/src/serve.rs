//! The conversation: `xcsh pack-host` takes the protocol pipes, says
//! hello, opens the one pack the agent asks for ([`open`](crate::open)),
//! and reads requests until the agent closes the pipe.
//!
//! The thread that reads a call runs it and then reads on; a call that
//! runs long has its reading handed to another thread ([`Relief`]), so it
//! never blocks a cancellation, another call, or an apply.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write as _};
use std::sync::{Arc, Mutex};

use xcsh_core::sync::lock;
use xcsh_isolate_pipe::SpinRead;
use xcsh_isolate_protocol::{Hello, Reply, Request, error_line, frame};

use crate::open::open_pack;
use crate::relief::Relief;
use crate::serve_error::ServeError;
use crate::server::Server;
use crate::writer::Writer;

/// Serves one pack until the agent closes the pipe.
///
/// # Errors
///
/// The pipes cannot be set up, or the agent speaks another protocol.
pub fn serve() -> Result<(), ServeError> {
    // A crash here ends this process only; the agent names the pack.
    xcsh_loader::disable_crash_reports();
    // First: nothing inherited, no shared terminal.
    crate::detach::detach().map_err(ServeError::setup("closing what it inherited"))?;
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
        Err(error) => {
            writer.send(&Reply::OpenFailed {
                message: error_line(&error),
            });
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
