//! Accept loop and per-connection request loop (framing, compression, faults, dispatch).

use std::io::{Read, Write};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::auth::{self, PROTO_ADMIN};
use crate::budget::Charge;
use crate::faults::Verdict;
use crate::security::{self, Caller, Grants};
use crate::stats::Kind;
use crate::wire::*;
use crate::{dispatch, info, offload, Edition, Shared};

/// Largest accepted frame body (the clients' own limit is 120 MiB).
pub const MAX_FRAME: usize = 128 * 1024 * 1024;
/// Request buffer every connection keeps; larger frames grow it as their bytes arrive.
const BASE_BUFFER: usize = 16 * 1024;
/// Reply buffers larger than this are released after use.
const KEEP_OUT: usize = 1024 * 1024;
/// Pending replies are written once they reach this size, even with more requests buffered.
const FLUSH_AT: usize = 256 * 1024;
/// Time a client gets to finish the TLS handshake.
const TLS_HANDSHAKE: Duration = Duration::from_secs(10);

/// What a connection's stream must do (plain TCP or TLS).
pub(crate) trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// Accepts connections until `stop` fires; each connection runs in its own task.
/// Pause after a failed accept (EMFILE and the like).
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

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
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(start(stream, shared.clone()));
                }
                // Out of descriptors (or memory): the pending connection stays in the backlog
                // and accept fails again at once; wait instead of spinning a core.
                Err(_) => tokio::time::sleep(ACCEPT_BACKOFF).await,
            }
        }
    }
}

/// Runs the TLS handshake when TLS is on (bounded in time), then serves the connection.
async fn start(stream: TcpStream, shared: Arc<Shared>) {
    let peer = stream.peer_addr().ok().map(|a| a.ip());
    match shared.tls.clone() {
        None => serve(stream, shared, peer).await,
        Some(acceptor) => {
            if let Ok(Ok(tls)) = tokio::time::timeout(TLS_HANDSHAKE, acceptor.accept(stream)).await
            {
                serve(tls, shared, peer).await;
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
    pub inflated: Vec<u8>,
    pub out: Vec<u8>,
}

/// A connection's request bytes: `data[pos..]` is not consumed yet. It grows only as bytes
/// arrive (at most doubling what it holds), and the growth is charged to the global budget.
struct InBuf {
    data: Vec<u8>,
    pos: usize,
    charge: Charge,
}

impl InBuf {
    fn new(shared: Arc<Shared>) -> InBuf {
        InBuf {
            data: Vec::with_capacity(BASE_BUFFER),
            pos: 0,
            charge: Charge::new(shared, BASE_BUFFER),
        }
    }

    fn available(&self) -> &[u8] {
        &self.data[self.pos..]
    }

    /// Reads until at least `need` unconsumed bytes are buffered; false on EOF, error or
    /// when the memory budget is exhausted.
    async fn fill<S: Io>(&mut self, stream: &mut S, need: usize) -> bool {
        while self.data.len() - self.pos < need {
            if self.data.len() == self.data.capacity() {
                if self.pos > 0 {
                    self.data.drain(..self.pos);
                    self.pos = 0;
                }
                let have = self.data.len();
                if have == self.data.capacity() {
                    let want = need.min(have.saturating_mul(2)).max(BASE_BUFFER);
                    if !self.charge.cover(want) {
                        return false;
                    }
                    self.data.reserve_exact(want - have);
                }
            }
            match stream.read_buf(&mut self.data).await {
                Ok(0) | Err(_) => return false,
                Ok(_) => {}
            }
        }
        true
    }

    /// Marks `n` bytes consumed; releases a grown buffer once it is empty.
    fn consume(&mut self, n: usize) {
        self.pos += n;
        if self.pos == self.data.len() {
            self.data.clear();
            self.pos = 0;
            if self.data.capacity() > BASE_BUFFER * 4 {
                self.data = Vec::with_capacity(BASE_BUFFER);
                self.charge.cover(0);
            }
        }
    }
}

/// Writes the pending replies in one go; false when the peer is gone.
async fn flush<S: Io>(stream: &mut S, out: &mut Vec<u8>) -> bool {
    if out.is_empty() {
        return true;
    }
    let ok = stream.write_all(out).await.is_ok() && stream.flush().await.is_ok();
    out.clear();
    if out.capacity() > KEEP_OUT {
        *out = Vec::new();
    }
    ok
}

/// [`flush`], then fits the reply buffer's charge to what the buffer keeps.
async fn flush_charged<S: Io>(stream: &mut S, out: &mut Vec<u8>, charge: &mut Charge) -> bool {
    let sent = flush(stream, out).await;
    charge.cover(out.capacity());
    sent
}

/// Serves one connection: every complete request already received is answered before the
/// replies are written, with one write for all of them.
async fn serve<S: Io>(mut stream: S, shared: Arc<Shared>, peer: Option<std::net::IpAddr>) {
    shared
        .stats
        .connections_open
        .fetch_add(1, Ordering::Relaxed);
    shared
        .stats
        .connections_total
        .fetch_add(1, Ordering::Relaxed);
    let _guard = OpenGuard(shared.clone());
    let mut input = InBuf::new(shared.clone());
    let mut bufs = Buffers::default();
    let mut out_charge = Charge::new(shared.clone(), KEEP_OUT);
    let mut caller = Caller::new(shared.users.is_some(), peer);
    loop {
        if input.available().len() < 8
            && (!flush_charged(&mut stream, &mut bufs.out, &mut out_charge).await
                || !input.fill(&mut stream, 8).await)
        {
            return;
        }
        let head: [u8; 8] = match input.available().get(..8).and_then(|h| h.try_into().ok()) {
            Some(h) => h,
            None => return,
        };
        let word = u64::from_be_bytes(head);
        let (version, ptype, len) = (
            (word >> 56) as u8,
            (word >> 48) as u8,
            (word & 0xFFFF_FFFF_FFFF) as usize,
        );
        if version != PROTO_VERSION || len > MAX_FRAME {
            let _ = flush(&mut stream, &mut bufs.out).await;
            return;
        }
        if input.available().len() < 8 + len
            && (!flush_charged(&mut stream, &mut bufs.out, &mut out_charge).await
                || !input.fill(&mut stream, 8 + len).await)
        {
            return;
        }
        while shared.faults.serving_paused() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let body = &input.data[input.pos + 8..input.pos + 8 + len];
        let keep = match ptype {
            PROTO_INFO => {
                shared.stats.count(Kind::Info);
                info::handle(body, &shared, &caller, &mut bufs.out);
                true
            }
            PROTO_ADMIN => {
                let community = shared.edition == Edition::Community;
                let users = shared.users.as_ref();
                auth::handle(body, users, community, &mut caller, &mut bufs.out)
            }
            PROTO_MSG | PROTO_COMPRESSED if !caller.authed => {
                let at = begin_frame(&mut bufs.out);
                header_only(&mut bufs.out, INFO3_LAST, auth::rc::NOT_AUTHENTICATED, 0);
                end_frame(&mut bufs.out, at, PROTO_MSG);
                true
            }
            PROTO_MSG => serve_msg(&mut stream, &shared, body, &mut bufs, &caller).await,
            PROTO_COMPRESSED if shared.edition == Edition::Community => {
                // Community servers cannot inflate: ENTERPRISE_ONLY, as a real one answers.
                let at = begin_frame(&mut bufs.out);
                header_only(
                    &mut bufs.out,
                    INFO3_LAST,
                    crate::record::rc::ENTERPRISE_ONLY,
                    0,
                );
                end_frame(&mut bufs.out, at, PROTO_MSG);
                true
            }
            PROTO_COMPRESSED => {
                let mut packed = std::mem::take(&mut bufs.inflated);
                let keep = match inflate(body, &mut packed) {
                    Some(()) => match inner_msg(&packed) {
                        Some(inner) => {
                            serve_msg(&mut stream, &shared, inner, &mut bufs, &caller).await
                        }
                        None => false,
                    },
                    None => false,
                };
                if packed.capacity() <= KEEP_OUT {
                    packed.clear();
                    bufs.inflated = packed;
                }
                keep
            }
            _ => false,
        };
        input.consume(8 + len);
        if !keep || !out_charge.cover(bufs.out.capacity()) {
            let _ = flush(&mut stream, &mut bufs.out).await;
            return;
        }
        if bufs.out.len() >= FLUSH_AT
            && !flush_charged(&mut stream, &mut bufs.out, &mut out_charge).await
        {
            return;
        }
    }
}

/// Serves one AS_MSG request `body`, appending its reply to `bufs.out` (scan/query replies
/// are streamed to `stream` after the pending replies). Returns false when the connection
/// must close.
async fn serve_msg<S: Io>(
    stream: &mut S,
    shared: &Arc<Shared>,
    body: &[u8],
    bufs: &mut Buffers,
    caller: &Caller,
) -> bool {
    let verdict = shared.faults.verdict();
    if verdict == Verdict::Drop {
        return false;
    }
    if let Some(ms) = shared.faults.take_delay() {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    // Community servers never compress replies, whatever the request asks.
    let compress = shared.edition == Edition::Enterprise
        && body
            .get(1)
            .is_some_and(|i1| i1 & INFO1_COMPRESS_RESPONSE != 0);
    let mark = bufs.out.len();
    if let Verdict::Fail(code) = verdict {
        let at = begin_frame(&mut bufs.out);
        header_only(&mut bufs.out, INFO3_LAST, code, 0);
        end_frame(&mut bufs.out, at, PROTO_MSG);
        return true;
    }
    let msg = match Msg::parse(body) {
        Ok(m) => m,
        Err(Malformed) => {
            let at = begin_frame(&mut bufs.out);
            header_only(&mut bufs.out, INFO3_LAST, crate::record::rc::PARAMETER, 0);
            end_frame(&mut bufs.out, at, PROTO_MSG);
            return true;
        }
    };
    let streamed = dispatch::is_stream(&msg);
    let grants = Grants::of(shared, caller);
    let ns = msg.fields.get(field::NAMESPACE).unwrap_or_default();
    let set = msg.fields.get(field::SET).unwrap_or_default();
    if let Some(code) = streamed
        .then(|| grants.refusal(security::stream_perm(&msg), ns, set))
        .flatten()
    {
        let at = begin_frame(&mut bufs.out);
        header_only(&mut bufs.out, INFO3_LAST, code, 0);
        end_frame(&mut bufs.out, at, PROTO_MSG);
        return true;
    }
    if streamed || offload::wanted(&msg) {
        if !flush(stream, &mut bufs.out).await {
            return false;
        }
        let mut scratch = Vec::new();
        let mut sink = FrameSink {
            stream,
            compress,
            scratch: &mut scratch,
        };
        return if offload::wanted(&msg) {
            offload::serve(shared, body, &mut sink, grants).await
        } else {
            dispatch::stream(&msg, shared, &mut bufs.out, &mut sink).await
        };
    }
    dispatch::single(&msg, shared, &mut bufs.out, &grants);
    if compress {
        let mut packed = Vec::new();
        if deflate_frames(&bufs.out[mark..], &mut packed).is_none() {
            return false;
        }
        bufs.out.truncate(mark);
        bufs.out.extend_from_slice(&packed);
    }
    true
}

/// Where streamed replies (scan/query) go: complete proto frames, compressed on request.
pub(crate) struct FrameSink<'a> {
    stream: &'a mut (dyn AsyncWrite + Unpin + Send),
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
        ok && self.stream.flush().await.is_ok()
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
    // Reserve what the compressed bytes can plausibly hold, not what the header claims.
    out.reserve(size.min(body.len().saturating_mul(8)));
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
