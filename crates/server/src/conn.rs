//! Accept loop and per-connection request loop (framing, compression, faults, dispatch).

use std::io::{Read, Write};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::faults::Verdict;
use crate::stats::Kind;
use crate::wire::*;
use crate::{dispatch, info, Shared};

/// Largest accepted frame body (the clients' own limit is 120 MiB).
pub const MAX_FRAME: usize = 128 * 1024 * 1024;

/// Accepts connections until `stop` fires; each connection runs in its own task.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stop: oneshot::Receiver<()>,
) {
    loop {
        if shared.faults.accept_paused() {
            tokio::select! {
                _ = &mut stop => return,
                _ = tokio::time::sleep(Duration::from_millis(10)) => continue,
            }
        }
        tokio::select! {
            _ = &mut stop => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(serve(stream, shared.clone()));
                }
            }
        }
    }
}

/// Keeps the open-connections gauge right even when the task is cancelled.
struct OpenGuard(Arc<Shared>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0
            .stats
            .connections_open
            .fetch_sub(1, Ordering::Relaxed);
    }
}

/// Per-connection reusable buffers.
#[derive(Default)]
pub(crate) struct Buffers {
    pub body: Vec<u8>,
    pub inflated: Vec<u8>,
    pub out: Vec<u8>,
}

async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    // Buffered reads: a request's header and body usually arrive in one read syscall.
    let mut reader = BufReader::with_capacity(16 * 1024, stream);
    shared
        .stats
        .connections_open
        .fetch_add(1, Ordering::Relaxed);
    shared
        .stats
        .connections_total
        .fetch_add(1, Ordering::Relaxed);
    let _guard = OpenGuard(shared.clone());
    let mut bufs = Buffers::default();
    let mut header = [0u8; 8];
    while reader.read_exact(&mut header).await.is_ok() {
        let word = u64::from_be_bytes(header);
        let (version, ptype, len) = (
            (word >> 56) as u8,
            (word >> 48) as u8,
            (word & 0xFFFF_FFFF_FFFF) as usize,
        );
        if version != PROTO_VERSION || len > MAX_FRAME {
            return;
        }
        bufs.body.resize(len, 0);
        if reader.read_exact(&mut bufs.body).await.is_err() {
            return;
        }
        let stream = reader.get_mut();
        let keep = match ptype {
            PROTO_INFO => {
                shared.stats.count(Kind::Info);
                bufs.out.clear();
                info::handle(&bufs.body, &shared, &mut bufs.out);
                stream.write_all(&bufs.out).await.is_ok()
            }
            PROTO_MSG => serve_msg(stream, &shared, &mut bufs, false).await,
            PROTO_COMPRESSED => match inflate(&bufs.body, &mut bufs.inflated) {
                Some(()) => {
                    std::mem::swap(&mut bufs.body, &mut bufs.inflated);
                    serve_msg(stream, &shared, &mut bufs, true).await
                }
                None => false,
            },
            _ => false,
        };
        if !keep {
            return;
        }
    }
}

/// Serves one AS_MSG request in `bufs.body` (for a compressed one, the inflated inner frame
/// including its proto header). Returns false when the connection must close.
async fn serve_msg(
    stream: &mut TcpStream,
    shared: &Shared,
    bufs: &mut Buffers,
    framed: bool,
) -> bool {
    let body: &[u8] = if framed {
        match inner_msg(&bufs.body) {
            Some(b) => b,
            None => return false,
        }
    } else {
        &bufs.body
    };
    let verdict = shared.faults.verdict();
    if verdict == Verdict::Drop {
        return false;
    }
    if let Some(ms) = shared.faults.take_delay() {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    bufs.out.clear();
    let compress = body
        .get(1)
        .is_some_and(|i1| i1 & INFO1_COMPRESS_RESPONSE != 0);
    if let Verdict::Fail(code) = verdict {
        let at = begin_frame(&mut bufs.out);
        header_only(&mut bufs.out, INFO3_LAST, code, 0);
        end_frame(&mut bufs.out, at, PROTO_MSG);
        return stream.write_all(&bufs.out).await.is_ok();
    }
    let msg = match Msg::parse(body) {
        Ok(m) => m,
        Err(Malformed) => {
            let at = begin_frame(&mut bufs.out);
            header_only(&mut bufs.out, INFO3_LAST, crate::record::rc::PARAMETER, 0);
            end_frame(&mut bufs.out, at, PROTO_MSG);
            return stream.write_all(&bufs.out).await.is_ok();
        }
    };
    if dispatch::is_stream(&msg) {
        let mut sink = FrameSink {
            stream,
            compress,
            scratch: &mut bufs.inflated,
        };
        return dispatch::stream(&msg, shared, &mut bufs.out, &mut sink).await;
    }
    dispatch::single(&msg, shared, &mut bufs.out);
    if compress {
        if deflate_frames(&bufs.out, &mut bufs.inflated).is_none() {
            return false;
        }
        std::mem::swap(&mut bufs.out, &mut bufs.inflated);
    }
    stream.write_all(&bufs.out).await.is_ok()
}

/// Where streamed replies (scan/query) go: complete proto frames, compressed on request.
pub(crate) struct FrameSink<'a> {
    stream: &'a mut TcpStream,
    compress: bool,
    scratch: &'a mut Vec<u8>,
}

impl FrameSink<'_> {
    /// Sends the frames in `frames` and clears it; false when the peer is gone.
    pub async fn send(&mut self, frames: &mut Vec<u8>) -> bool {
        let ok = if self.compress {
            match deflate_frames(frames, self.scratch) {
                Some(()) => self.stream.write_all(self.scratch).await.is_ok(),
                None => false,
            }
        } else {
            self.stream.write_all(frames).await.is_ok()
        };
        frames.clear();
        ok
    }
}

/// The AS_MSG body inside an inflated frame (proto header checked).
fn inner_msg(frame: &[u8]) -> Option<&[u8]> {
    let head: [u8; 8] = frame.get(..8)?.try_into().ok()?;
    let word = u64::from_be_bytes(head);
    if (word >> 48) as u8 != PROTO_MSG {
        return None;
    }
    let len = (word & 0xFFFF_FFFF_FFFF) as usize;
    frame.get(8..8usize.checked_add(len)?)
}

/// Inflates a compressed body (u64 size + zlib) into `out`, bounded by [`MAX_FRAME`].
fn inflate(body: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let size: [u8; 8] = body.get(..8)?.try_into().ok()?;
    let size = usize::try_from(u64::from_be_bytes(size)).ok()?;
    if size > MAX_FRAME + 8 {
        return None;
    }
    out.clear();
    out.reserve(size);
    let mut dec = flate2::read::ZlibDecoder::new(body.get(8..)?).take(size as u64 + 1);
    dec.read_to_end(out).ok()?;
    (out.len() == size).then_some(())
}

/// Compresses each proto frame of `frames` into a type-4 frame in `out`.
fn deflate_frames(frames: &[u8], out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    let mut rest = frames;
    while !rest.is_empty() {
        let head: [u8; 8] = rest.get(..8)?.try_into().ok()?;
        let len = (u64::from_be_bytes(head) & 0xFFFF_FFFF_FFFF) as usize;
        let frame = rest.get(..8 + len)?;
        rest = &rest[8 + len..];
        let at = begin_frame(out);
        out.extend_from_slice(&(frame.len() as u64).to_be_bytes());
        let mut enc =
            flate2::write::ZlibEncoder::new(std::mem::take(out), flate2::Compression::fast());
        enc.write_all(frame).ok()?;
        *out = enc.finish().ok()?;
        end_frame(out, at, PROTO_COMPRESSED);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compression_round_trip() {
        let mut frames = Vec::new();
        for n in [10usize, 3000] {
            let at = begin_frame(&mut frames);
            frames.extend(std::iter::repeat_n(7u8, n));
            end_frame(&mut frames, at, PROTO_MSG);
        }
        let mut packed = Vec::new();
        deflate_frames(&frames, &mut packed).expect("deflate");
        let mut rest = &packed[..];
        let mut back = Vec::new();
        while !rest.is_empty() {
            let len =
                (u64::from_be_bytes(rest[..8].try_into().unwrap()) & 0xFFFF_FFFF_FFFF) as usize;
            assert_eq!(rest[1], PROTO_COMPRESSED);
            let mut one = Vec::new();
            inflate(&rest[8..8 + len], &mut one).expect("inflate");
            back.extend_from_slice(&one);
            rest = &rest[8 + len..];
        }
        assert_eq!(back, frames);
    }

    #[test]
    fn inflate_rejects_lies() {
        let mut out = Vec::new();
        assert!(inflate(&[0, 0, 0, 0, 0, 0, 0, 5, 1, 2], &mut out).is_none());
        assert!(inflate(&[0xFF; 8], &mut out).is_none());
        assert!(inflate(&[], &mut out).is_none());
    }
}
