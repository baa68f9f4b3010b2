//! Reading a protocol pipe whose next frame usually comes within a few
//! microseconds: a non-blocking read polled briefly ([`Spin`]) before the
//! reader sleeps in `poll(2)`. Waking a thread that sleeps on a pipe costs
//! about 7 µs on an idle virtual CPU; a round trip between two processes
//! that both poll measured 2.5 µs against 14.9 µs blocking
//! (BENCHMARKS.md, figure 6). The spin adapts: when frames come seldom (a
//! model thinking between calls) it shrinks to a microsecond, so an idle
//! session keeps no core busy.
//!
//! A read can be given a deadline ([`SpinRead::set_deadline`]): past it, a
//! read that found nothing fails with [`io::ErrorKind::TimedOut`], so a
//! call's own thread can read its reply and still keep its time limit.
//!
//! The agent reads its packs' replies this way, and a pack's process its
//! requests: there the thread that polls is the one that just answered
//! the last call (`xcsh-pack-host`'s relief), so it takes no CPU from a
//! call. When a
//! second thread polled for the next request while the first ran the
//! call, both sides polling measured 27.0 µs against 19.4 µs with the
//! agent's alone (BENCHMARKS-history.md §10b).

use std::io::{self, Read};
use std::os::fd::AsFd;
use std::time::Instant;

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use xcsh_core::Spin;

/// A pipe's read end, switched to non-blocking and read as above.
#[derive(Debug)]
pub struct SpinRead<R> {
    inner: R,
    spin: Spin,
    deadline: Option<Instant>,
}

impl<R: Read + AsFd> SpinRead<R> {
    /// Reads `inner`, which this makes non-blocking (its other users see
    /// that too: hand it over whole).
    ///
    /// # Errors
    ///
    /// Its flags cannot be read or set.
    pub fn new(inner: R) -> io::Result<Self> {
        let flags = OFlag::from_bits_retain(fcntl(inner.as_fd(), FcntlArg::F_GETFL)?);
        fcntl(inner.as_fd(), FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
        Ok(Self {
            inner,
            spin: Spin::new(),
            deadline: None,
        })
    }

    /// Until when a read waits for bytes (`None`: as long as it takes).
    /// A deadline already past makes a read one look, without spinning.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Sleeps until the pipe has bytes (or its writer is gone), or fails
    /// with [`io::ErrorKind::TimedOut`] once the deadline has passed.
    fn sleep(&self) -> io::Result<()> {
        let mut fds = [PollFd::new(self.inner.as_fd(), PollFlags::POLLIN)];
        loop {
            let timeout = match self.deadline {
                None => PollTimeout::NONE,
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(io::ErrorKind::TimedOut.into());
                    }
                    // Rounded up: a sleep never ends before the deadline.
                    let millis = left.as_micros().div_ceil(1000);
                    PollTimeout::try_from(millis).unwrap_or(PollTimeout::MAX)
                }
            };
            match poll(&mut fds, timeout) {
                Ok(0) => {}
                Ok(_) => return Ok(()),
                Err(nix::errno::Errno::EINTR) => {}
                Err(error) => return Err(error.into()),
            }
        }
    }
}

impl<R: AsFd> AsFd for SpinRead<R> {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.inner.as_fd()
    }
}

/// One non-blocking read: `None` if there was nothing to read yet.
fn try_read(inner: &mut impl Read, buf: &mut [u8]) -> Option<io::Result<usize>> {
    match inner.read(buf) {
        Err(error) if error.kind() == io::ErrorKind::WouldBlock => None,
        Err(error) if error.kind() == io::ErrorKind::Interrupted => None,
        other => Some(other),
    }
}

impl<R: Read + AsFd> Read for SpinRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self
            .deadline
            .is_some_and(|deadline| deadline <= Instant::now())
        {
            return try_read(&mut self.inner, buf)
                .unwrap_or_else(|| Err(io::ErrorKind::TimedOut.into()));
        }
        loop {
            let inner = &mut self.inner;
            let attempt = self.spin.poll(|| try_read(inner, buf));
            match attempt {
                Ok(read) => return read,
                Err(missed) => {
                    self.sleep()?;
                    self.spin.missed(missed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::time::Duration;

    use super::*;

    #[test]
    fn bytes_written_before_during_and_after_the_spin_are_read_and_the_end_is_seen() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let mut reader = SpinRead::new(reader).unwrap();
        writer.write_all(b"ab").unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(reader.read(&mut buf).unwrap(), 2);
        let late = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            writer.write_all(b"cde").unwrap();
            // Dropped: the reader then sees the end.
        });
        let mut rest = Vec::new();
        reader.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b"cde");
        late.join().unwrap();
    }
}
