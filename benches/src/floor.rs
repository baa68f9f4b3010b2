//! What the kernel allows for a round trip between two processes, the
//! floor an isolated call is set against: a second process (this bench
//! binary again, told by [`FLOOR_CHILD`] what to do) that answers each
//! byte of the first at once, over two pipes (what an isolated pack's
//! frames travel over, without the frames).
//!
//! - [`Floor::Pipe`]: blocking reads: each side sleeps in the kernel until
//!   the other writes;
//! - [`Floor::PipeSpin`]: non-blocking reads, both sides polling: what is
//!   left without any sleep, at a core each.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::process::{Child, Command, Stdio};

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, fcntl};

/// The environment variable that makes a bench binary serve as the
/// answering process (its value names the floor) instead of benchmarking.
pub const FLOOR_CHILD: &str = "XCSH_BENCH_FLOOR_CHILD";

/// One way of making a round trip between two processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Floor {
    /// Pipes, blocking reads.
    Pipe,
    /// Pipes, both sides polling.
    PipeSpin,
}

impl Floor {
    /// Every floor, in the order they are reported.
    pub const ALL: [Self; 2] = [Self::Pipe, Self::PipeSpin];

    /// The floor's name in benchmark ids and in [`FLOOR_CHILD`].
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Pipe => "pipe",
            Self::PipeSpin => "pipe_spin",
        }
    }

    fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|floor| floor.name() == name)
    }
}

/// Serves as the answering process if [`FLOOR_CHILD`] says so (and then
/// never returns); otherwise returns at once. Call first thing in `main`.
pub fn serve_if_child() {
    let Some(floor) = std::env::var(FLOOR_CHILD)
        .ok()
        .and_then(|v| Floor::named(&v))
    else {
        return;
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    if floor == Floor::PipeSpin {
        non_blocking(stdin.as_fd());
    }
    let mut byte = [0u8; 1];
    loop {
        match read(stdin.as_fd(), &mut byte) {
            Ok(1) => {}
            _ => std::process::exit(0),
        }
        if nix::unistd::write(stdout.as_fd(), &byte).is_err() {
            std::process::exit(0);
        }
    }
}

/// Makes reads of `fd` return at once when there is nothing to read.
fn non_blocking(fd: BorrowedFd<'_>) {
    fcntl(fd, FcntlArg::F_SETFL(OFlag::O_NONBLOCK)).expect("a non-blocking pipe");
}

/// A read that, on a non-blocking descriptor, polls until there is data.
fn read(fd: BorrowedFd<'_>, buffer: &mut [u8]) -> nix::Result<usize> {
    loop {
        match nix::unistd::read(fd, buffer) {
            Err(Errno::EAGAIN | Errno::EINTR) => std::hint::spin_loop(),
            other => return other,
        }
    }
}

/// The first process's side of a floor: its answering process and the
/// pipes to it.
#[derive(Debug)]
pub struct PingPong {
    child: Child,
    to_child: OwnedFd,
    from_child: OwnedFd,
}

impl PingPong {
    /// Starts the answering process for `floor`.
    ///
    /// # Panics
    ///
    /// If the process cannot be started.
    #[must_use]
    pub fn start(floor: Floor) -> Self {
        let exe = std::env::current_exe().expect("the bench binary's path");
        let mut child = Command::new(exe)
            .env(FLOOR_CHILD, floor.name())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the answering process");
        let to_child = OwnedFd::from(child.stdin.take().expect("its stdin"));
        let from_child = OwnedFd::from(child.stdout.take().expect("its stdout"));
        if floor == Floor::PipeSpin {
            non_blocking(from_child.as_fd());
        }
        Self {
            child,
            to_child,
            from_child,
        }
    }

    /// One round trip: a byte to the answering process and its answer.
    ///
    /// # Panics
    ///
    /// If the answering process has gone.
    pub fn round_trip(&self) {
        nix::unistd::write(&self.to_child, &[1]).expect("write to the answerer");
        let mut answer = [0u8; 1];
        let got = read(self.from_child.as_fd(), &mut answer).expect("its answer");
        assert_eq!(got, 1, "an answer");
    }
}

impl Drop for PingPong {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
