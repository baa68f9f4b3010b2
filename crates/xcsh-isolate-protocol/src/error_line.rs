//! An error and its causes as one line: the form in which a failure
//! crosses the pipe ([`Reply::OpenFailed`](crate::Reply::OpenFailed)) and
//! reaches a load report or a tool's error on either side.

use std::error::Error;

/// `error`'s message and each of its causes (`source()`), joined by `: `,
/// as the user reads it.
///
/// A cause whose message already ends the line is not said again: some
/// errors both print their cause and return it as their source (`landlock`'s,
/// `seccompiler`'s, this crate's own [`FrameError::Io`](crate::FrameError::Io));
/// snafu's `CleanedErrorText` drops such repeats the same way.
///
/// ```
/// use std::io;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("cannot start its process")]
/// struct Spawn(#[source] io::Error);
///
/// let error = Spawn(io::Error::from(io::ErrorKind::NotFound));
/// assert_eq!(
///     xcsh_isolate_protocol::error_line(&error),
///     "cannot start its process: entity not found"
/// );
/// ```
pub fn error_line(error: &dyn Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        source = cause.source();
    }
    line
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;
    use crate::FrameError;

    #[derive(Debug, thiserror::Error)]
    #[error("reading the reply")]
    struct Outer(#[source] FrameError);

    #[test]
    fn each_cause_is_said_once() {
        let broken = Outer(FrameError::Io(io::Error::other("broken pipe")));
        assert_eq!(
            error_line(&broken),
            "reading the reply: pipe error: broken pipe"
        );
        assert_eq!(
            error_line(&FrameError::Truncated),
            "the stream ended inside a frame"
        );
    }
}
