//! Standard input that says when the client closed it.
//!
//! rmcp keeps serving in-flight requests for a while after the input ends;
//! a `subscriptions/listen` stream never ends on its own, so without this
//! signal the server would outlive its client until the client kills it,
//! and pending actions would never be discarded.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::watch;

/// Wraps a reader; flips a watch flag when it reads end of input (or fails).
#[derive(Debug)]
pub struct WatchEof<R> {
    inner: R,
    closed: watch::Sender<bool>,
}

impl<R> WatchEof<R> {
    /// Wraps `inner`; the receiver sees `true` once input has ended.
    pub fn new(inner: R) -> (Self, watch::Receiver<bool>) {
        let (closed, receiver) = watch::channel(false);
        (Self { inner, closed }, receiver)
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchEof<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &poll {
            Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            Poll::Ready(Err(_)) => true,
            Poll::Pending => false,
        };
        if ended {
            self.closed.send_replace(true);
        }
        poll
    }
}

/// Waits until `closed` is `true` (or its sender is gone).
pub async fn input_closed(mut closed: watch::Receiver<bool>) {
    let _ = closed.wait_for(|closed| *closed).await;
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt as _;

    use super::*;

    #[test]
    fn end_of_input_flips_the_flag_once_the_data_is_read() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let (mut reader, closed) = WatchEof::new(&b"line\n"[..]);
            let mut text = String::new();
            let mut chunk = [0u8; 3];
            let read = reader.read(&mut chunk).await.unwrap();
            text.push_str(std::str::from_utf8(&chunk[..read]).unwrap());
            assert!(!*closed.borrow());
            reader.read_to_string(&mut text).await.unwrap();
            assert_eq!(text, "line\n");
            assert!(*closed.borrow());
            input_closed(closed).await;
        });
    }
}
