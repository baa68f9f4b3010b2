//! The reply pipe, written one whole frame at a time by whichever thread
//! has something to say.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::sync::Mutex;

use xcsh_core::sync::lock;
use xcsh_isolate_protocol::{Reply, frame};

/// The write half of the pipe, one frame at a time.
pub(crate) struct Writer(pub(crate) Mutex<BufWriter<File>>);

impl Writer {
    /// Sends `reply`. If the agent is gone there is no one to serve: exit.
    pub(crate) fn send(&self, reply: &Reply) {
        let mut out = lock(&self.0);
        if frame::write(&mut *out, reply)
            .and_then(|()| out.flush().map_err(Into::into))
            .is_err()
        {
            std::process::exit(0);
        }
    }
}
