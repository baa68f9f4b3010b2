//! Length-delimited frames: a 4-byte little-endian length, then that many
//! bytes of `postcard`.

use std::io::{self, Read, Write};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The largest frame either end accepts (a tool result with images may be
/// large; anything bigger is a broken peer).
pub const MAX_FRAME_BYTES: usize = 256 * 1024 * 1024;

/// Why a frame could not be written or read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The pipe failed.
    #[error("pipe error: {0}")]
    Io(#[from] io::Error),
    /// The stream ended inside a frame.
    #[error("the stream ended inside a frame")]
    Truncated,
    /// A frame announced more than [`MAX_FRAME_BYTES`].
    #[error("frame of {0} bytes exceeds the limit of {MAX_FRAME_BYTES}")]
    TooLarge(usize),
    /// A frame announced more than the reader's own bound
    /// ([`read_within`]); nothing of it was read.
    #[error("frame of {len} bytes exceeds the limit of {limit}")]
    OverLimit {
        /// The announced length.
        len: usize,
        /// The reader's bound.
        limit: usize,
    },
    /// The bytes are not a valid message of the expected type.
    #[error("invalid message: {0}")]
    Decode(#[source] postcard::Error),
    /// The message could not be encoded (e.g. a path that is not UTF-8).
    #[error("cannot encode message: {0}")]
    Encode(#[source] postcard::Error),
}

/// Encodes `message` into one frame, ready to write.
///
/// # Errors
///
/// [`FrameError::Encode`], or [`FrameError::TooLarge`].
pub fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, FrameError> {
    let mut bytes = vec![0u8; 4];
    bytes = postcard::to_extend(message, bytes).map_err(FrameError::Encode)?;
    let len = bytes.len() - 4;
    if len > MAX_FRAME_BYTES {
        return Err(FrameError::TooLarge(len));
    }
    let prefix = u32::try_from(len).map_err(|_| FrameError::TooLarge(len))?;
    bytes[..4].copy_from_slice(&prefix.to_le_bytes());
    Ok(bytes)
}

/// Writes `message` as one frame (one `write_all`; the caller flushes).
///
/// # Errors
///
/// See [`encode`]; [`FrameError::Io`] if the pipe fails.
pub fn write<T: Serialize>(out: &mut impl Write, message: &T) -> Result<(), FrameError> {
    out.write_all(&encode(message)?)?;
    Ok(())
}

/// Reads one frame into `buffer` (reused between calls) and decodes it.
/// `Ok(None)` when the stream ends cleanly before a frame.
///
/// # Errors
///
/// [`FrameError::Truncated`], [`FrameError::TooLarge`],
/// [`FrameError::Decode`] or [`FrameError::Io`].
pub fn read<T: DeserializeOwned>(
    input: &mut impl Read,
    buffer: &mut Vec<u8>,
) -> Result<Option<T>, FrameError> {
    read_within(input, buffer, MAX_FRAME_BYTES)
}

/// [`read`] with a bound of `limit` bytes (at most [`MAX_FRAME_BYTES`]):
/// a longer frame is refused from its length prefix, before any of it is
/// buffered or decoded.
///
/// # Errors
///
/// As [`read`]; [`FrameError::OverLimit`] past `limit`.
pub fn read_within<T: DeserializeOwned>(
    input: &mut impl Read,
    buffer: &mut Vec<u8>,
    limit: usize,
) -> Result<Option<T>, FrameError> {
    let mut prefix = [0u8; 4];
    let mut filled = 0;
    while filled < prefix.len() {
        match input.read(&mut prefix[filled..]) {
            Ok(0) if filled == 0 => return Ok(None),
            Ok(0) => return Err(FrameError::Truncated),
            Ok(n) => filled += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error.into()),
        }
    }
    let len = u32::from_le_bytes(prefix) as usize;
    if len > MAX_FRAME_BYTES {
        return Err(FrameError::TooLarge(len));
    }
    if len > limit {
        return Err(FrameError::OverLimit { len, limit });
    }
    buffer.clear();
    buffer.resize(len, 0);
    input.read_exact(buffer).map_err(|error| {
        if error.kind() == io::ErrorKind::UnexpectedEof {
            FrameError::Truncated
        } else {
            error.into()
        }
    })?;
    postcard::from_bytes(buffer)
        .map(Some)
        .map_err(FrameError::Decode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Outcome, Output, Reply, Request};

    #[test]
    fn frames_round_trip_back_to_back() {
        let mut wire = Vec::new();
        let call = Request::Call {
            id: 7,
            tool: "t".into(),
            call_id: "c".into(),
            arguments_json: "{\"a\":1}".into(),
        };
        let done = Reply::Done {
            id: 7,
            outcome: Outcome::Output(Output::text("ok")),
        };
        write(&mut wire, &call).unwrap();
        write(&mut wire, &done).unwrap();
        let mut input = wire.as_slice();
        let mut buffer = Vec::new();
        assert_eq!(
            read::<Request>(&mut input, &mut buffer).unwrap(),
            Some(call)
        );
        assert_eq!(read::<Reply>(&mut input, &mut buffer).unwrap(), Some(done));
        assert_eq!(read::<Reply>(&mut input, &mut buffer).unwrap(), None);
    }

    #[test]
    fn a_stream_cut_inside_a_frame_is_truncated() {
        let wire = encode(&Request::Cancel { id: 1 }).unwrap();
        for cut in 1..wire.len() {
            let error = read::<Request>(&mut &wire[..cut], &mut Vec::new()).unwrap_err();
            assert!(matches!(error, FrameError::Truncated), "{cut}: {error}");
        }
    }

    #[test]
    fn an_oversized_length_is_refused_before_reading() {
        let wire = u32::MAX.to_le_bytes();
        let error = read::<Request>(&mut wire.as_slice(), &mut Vec::new()).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "frame of {} bytes exceeds the limit of {MAX_FRAME_BYTES}",
                u32::MAX
            )
        );
    }

    #[test]
    fn a_frame_past_the_reader_s_bound_is_refused_unread() {
        let wire = encode(&Reply::Done {
            id: 1,
            outcome: Outcome::Output(Output::text("x".repeat(100))),
        })
        .unwrap();
        let mut input = wire.as_slice();
        let mut buffer = Vec::new();
        let error = read_within::<Reply>(&mut input, &mut buffer, 64).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("frame of {} bytes exceeds the limit of 64", wire.len() - 4)
        );
        assert!(buffer.is_empty(), "nothing buffered");
        assert_eq!(input.len(), wire.len() - 4, "only the prefix was read");
    }

    #[test]
    fn garbage_is_a_decode_error() {
        let mut wire = 3u32.to_le_bytes().to_vec();
        wire.extend([0xff, 0xff, 0xff]);
        let error = read::<Request>(&mut wire.as_slice(), &mut Vec::new()).unwrap_err();
        assert!(matches!(error, FrameError::Decode(_)), "{error}");
    }
}
