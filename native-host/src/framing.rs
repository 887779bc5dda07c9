//! Frames on stdio, through the `native_messaging` crate's codec.
//!
//! The crate decodes one frame and reports typed errors, but its own reader loop
//! (`spawn_reader`) gives up at the first error of any kind. We wrap
//! [`native_messaging::host::decode_message_opt`] so the host can tell apart errors after
//! which the stream is still in sync (and answer them) from those after which it is not:
//!
//! * `IncomingTooLarge { len }` is returned *before* the payload is read, so we drain exactly
//!   `len` bytes and the next frame starts where it should;
//! * `IncomingNotUtf8` is returned after the whole payload was read: still in sync;
//! * `Io(UnexpectedEof)` means the stream ended inside a frame: nothing more can be read.

use std::io::{self, Read};

use native_messaging::host::{NmError, decode_message_opt, encode_message};
use waymark_protocol::{ErrorCode, HostFrame, MAX_BROWSER_TO_HOST, ReplyFrame};

use serde::Serialize;

/// One item read from the browser.
#[derive(Debug, PartialEq)]
pub enum Inbound {
    /// A complete UTF-8 frame, not yet parsed as JSON.
    Frame(String),
    /// A complete frame whose bytes were not UTF-8 (already consumed).
    NotUtf8,
    /// A frame above the size cap; its `len` bytes were skipped.
    TooLarge {
        /// The length the prefix announced.
        len: usize,
    },
    /// No more frames will come.
    End(EndReason),
}

/// Why the inbound stream ended.
#[derive(Debug, PartialEq)]
pub enum EndReason {
    /// Clean EOF between frames: the browser closed the port.
    Eof,
    /// EOF inside a frame (length prefix or payload cut short); cannot re-synchronise.
    Truncated,
    /// Reading stdin failed.
    Io(String),
}

/// Reads the next item; never panics and never returns an error the caller must interpret.
pub fn read_inbound<R: Read>(reader: &mut R, max_size: usize) -> Inbound {
    match decode_message_opt(reader, max_size) {
        Ok(Some(text)) => Inbound::Frame(text),
        Ok(None) => Inbound::End(EndReason::Eof),
        Err(NmError::IncomingNotUtf8(_)) => Inbound::NotUtf8,
        Err(NmError::IncomingTooLarge { len, .. }) => match drain(reader, len) {
            Ok(()) => Inbound::TooLarge { len },
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                Inbound::End(EndReason::Truncated)
            }
            Err(e) => Inbound::End(EndReason::Io(e.to_string())),
        },
        Err(NmError::Io(e)) if e.kind() == io::ErrorKind::UnexpectedEof => {
            Inbound::End(EndReason::Truncated)
        }
        Err(e) => Inbound::End(EndReason::Io(e.to_string())),
    }
}

/// Skips exactly `len` bytes without buffering them all.
fn drain<R: Read>(reader: &mut R, len: usize) -> io::Result<()> {
    let want = len as u64;
    let got = io::copy(&mut reader.take(want), &mut io::sink())?;
    if got < want {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// The inbound cap: what Chrome may send us.
pub const INBOUND_CAP: usize = MAX_BROWSER_TO_HOST;

/// Encodes a frame for stdout. A reply above the 1 MiB browser cap is replaced by a
/// `reply_too_large` error for the same id, because Chrome would otherwise close the port;
/// a reply that cannot be serialised becomes an `internal` error for its id, never `null`.
pub fn encode_frame<T: Serialize>(frame: &HostFrame<T>) -> Vec<u8> {
    match encode_message(frame) {
        Ok(bytes) => bytes,
        Err(err) => {
            let id = match frame {
                HostFrame::Reply(r) => r.id,
                HostFrame::Event(e) => e.id,
            };
            let (code, message) = match err {
                NmError::OutgoingTooLarge { len, max } => (
                    ErrorCode::ReplyTooLarge,
                    format!("the reply is {len} bytes, above the browser's {max}-byte limit"),
                ),
                other => (ErrorCode::Internal, format!("cannot encode the reply: {other}")),
            };
            let fallback = HostFrame::<()>::Reply(ReplyFrame::err(id, code, message));
            // A short error always encodes; an empty frame would only happen on a serde bug.
            encode_message(&fallback).unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut v = (payload.len() as u32).to_ne_bytes().to_vec();
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn oversize_frame_is_skipped_and_stream_stays_in_sync() {
        let mut bytes = frame(&[b'x'; 100]);
        bytes.extend(frame(b"{\"a\":1}"));
        let mut r = Cursor::new(bytes);
        assert_eq!(read_inbound(&mut r, 10), Inbound::TooLarge { len: 100 });
        assert_eq!(read_inbound(&mut r, 10), Inbound::Frame("{\"a\":1}".into()));
        assert_eq!(read_inbound(&mut r, 10), Inbound::End(EndReason::Eof));
    }

    #[test]
    fn truncation_anywhere_ends_the_stream() {
        let full = frame(b"{\"a\":1}");
        for cut in 1..full.len() {
            let mut r = Cursor::new(full[..cut].to_vec());
            assert_eq!(read_inbound(&mut r, 100), Inbound::End(EndReason::Truncated), "cut {cut}");
        }
        let mut r = Cursor::new(frame(&[b'x'; 100])[..50].to_vec());
        assert_eq!(read_inbound(&mut r, 10), Inbound::End(EndReason::Truncated));
    }

    #[test]
    fn non_utf8_is_reported_and_consumed() {
        let mut bytes = frame(&[0xff, 0xfe]);
        bytes.extend(frame(b"1"));
        let mut r = Cursor::new(bytes);
        assert_eq!(read_inbound(&mut r, 100), Inbound::NotUtf8);
        assert_eq!(read_inbound(&mut r, 100), Inbound::Frame("1".into()));
    }

    /// Data whose serialisation fails, as a bug in a reply type would.
    struct Unserialisable;

    impl Serialize for Unserialisable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no encoding for this"))
        }
    }

    #[test]
    fn a_reply_that_cannot_be_encoded_is_an_internal_error_not_null() {
        let bytes = encode_frame(&HostFrame::Reply(ReplyFrame::ok(8, Unserialisable)));
        let text = std::str::from_utf8(&bytes[4..]).expect("utf8");
        let frame: ReplyFrame<String> = serde_json::from_str(text).expect("a reply frame");
        assert_eq!(frame.id, 8);
        let error = frame.error_body().expect("an error reply");
        assert_eq!(error.code, ErrorCode::Internal);
        assert!(error.message.contains("no encoding for this"), "{text}");
    }

    #[test]
    fn oversize_reply_becomes_an_error() {
        let big = "x".repeat(2 * 1024 * 1024);
        let bytes = encode_frame(&HostFrame::Reply(ReplyFrame::ok(5, big)));
        assert!(bytes.len() < 1024);
        let text = std::str::from_utf8(&bytes[4..]).expect("utf8");
        assert!(text.contains("reply_too_large") && text.contains("\"id\":5"), "{text}");
    }
}
