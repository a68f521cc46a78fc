//! One connection to a node, opened the way the cluster asks: TCP, then TLS when the client
//! has a TLS policy, then the admin protocol's login when it has credentials.
//!
//! A client logs in once per session: the first connection sends `LOGIN` (the bcrypt hash
//! of the password, computed once) and keeps the session token the server answers; every
//! later connection, on any runtime, presents the token with `AUTHENTICATE`. A token the
//! server no longer knows, or one past its lifetime, is replaced by a new `LOGIN`.

use std::io;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use aerospike::policy::{AuthMode, ClientPolicy};
use parking_lot::Mutex;
use rustls_pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::conn::frame::proto_header;
use crate::metrics::NodeTraffic;

/// Largest reply read (a record is at most 8 MiB on a server).
const MAX_REPLY: usize = 64 << 20;
/// Largest admin reply read (a login answer is a token and a lifetime).
const MAX_ADMIN_REPLY: usize = 64 << 10;

/// Proto type and commands of the admin protocol.
const PROTO_ADMIN: u8 = 2;
const AUTHENTICATE: u8 = 0;
const LOGIN: u8 = 20;
/// Admin field ids.
const USER: u8 = 0;
const CREDENTIAL: u8 = 3;
const CLEAR_PASSWORD: u8 = 4;
const SESSION_TOKEN: u8 = 5;
const SESSION_TTL: u8 = 6;
/// Admin result codes that let a connection through.
const OK: u8 = 0;
const SECURITY_NOT_ENABLED: u8 = 52;
/// A session is renewed this long before the server would expire it.
const RENEW_BEFORE: Duration = Duration::from_secs(60);
/// Lifetime assumed for a token answered without one.
const DEFAULT_SESSION: Duration = Duration::from_secs(3600);

/// bcrypt cost and salt of the password hash every Aerospike client sends (protocol constants).
const HASH_COST: u32 = 10;
const HASH_SALT: [u8; 16] = [
    244, 107, 11, 190, 207, 254, 141, 27, 6, 103, 216, 79, 109, 193, 216, 169,
];

/// A socket to a node: plain TCP, or TLS over it.
pub enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl Stream {
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => s.get_ref().0,
        }
    }

    /// Whether an idle connection is still open: nothing to read and no end of stream (a
    /// server that restarted or reaped it closed it while it sat in the pool).
    pub fn alive(&self) -> bool {
        let mut probe = [std::mem::MaybeUninit::<u8>::uninit(); 1];
        matches!(
            socket2::SockRef::from(self.tcp()).peek(&mut probe),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock
        )
    }

    /// Send all of `bytes` (TLS records included: nothing stays buffered).
    pub async fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.write_all(bytes).await,
            Stream::Tls(s) => {
                s.write_all(bytes).await?;
                s.flush().await
            }
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// An open connection to a node, with the buffers of its requests and replies, and its place
/// in the node's connection budget (given back when it closes).
pub struct Conn {
    pub stream: Stream,
    pub out: Vec<u8>,
    pub buf: Vec<u8>,
    pub(crate) used: Instant,
    pub(crate) place: Place,
}

/// A connection's place in its node's budget, and the node's traffic counts.
pub struct Place {
    _permit: OwnedSemaphorePermit,
    pub traffic: Arc<NodeTraffic>,
}

impl Place {
    pub fn new(permit: OwnedSemaphorePermit, traffic: Arc<NodeTraffic>) -> Place {
        traffic.opened.fetch_add(1, Ordering::Relaxed);
        Place {
            _permit: permit,
            traffic,
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.traffic.closed.fetch_add(1, Ordering::Relaxed);
    }
}

impl Conn {
    /// Send `self.out` and read one reply of proto type `kind` into `self.buf`; the body's
    /// length (`None`: the connection failed, or the reply is not one).
    pub async fn exchange(&mut self, kind: u8) -> Option<usize> {
        self.stream.send(&self.out).await.ok()?;
        self.place.traffic.sent(self.out.len());
        self.buf.clear();
        self.read_frame(kind).await
    }

    /// Read until `self.buf` starts with a whole reply of proto type `kind` (bytes after it
    /// may follow); its body's length (`None`: the connection failed, or the reply is not one).
    pub async fn read_frame(&mut self, kind: u8) -> Option<usize> {
        let size = read_frame(&mut self.stream, &mut self.buf, kind, MAX_REPLY).await?;
        self.place.traffic.received(8 + size);
        Some(size)
    }

    /// The reply of proto type `kind` after the `done` bytes of `self.buf` already read: where
    /// it starts in `self.buf` and its body's length. A reply already buffered is read where
    /// it lies; else the bytes before it are dropped first (moving what follows once, not once
    /// per reply of a long stream).
    pub async fn next_frame(&mut self, done: usize, kind: u8) -> Option<(usize, usize)> {
        if let Frame::Whole(size) = frame_at(&self.buf[done..], kind, MAX_REPLY)? {
            self.place.traffic.received(8 + size);
            return Some((done, size));
        }
        self.buf.drain(..done);
        Some((0, self.read_frame(kind).await?))
    }
}

/// What a buffer holds at its start.
enum Frame {
    /// A whole reply of this body length.
    Whole(usize),
    /// The start of one: this many bytes more are wanted (0: its header is incomplete).
    Partial(usize),
}

/// The reply at the start of `buf`, if it is of proto type `kind` and at most `max` long.
fn frame_at(buf: &[u8], kind: u8, max: usize) -> Option<Frame> {
    let Some(h) = buf.get(..8) else {
        return Some(Frame::Partial(0));
    };
    let proto = u64::from_be_bytes(h.try_into().ok()?);
    let size = usize::try_from(proto & 0xFFFF_FFFF_FFFF).ok()?;
    if h[1] != kind || size > max {
        return None;
    }
    Some(match (8 + size).checked_sub(buf.len()) {
        None | Some(0) => Frame::Whole(size),
        Some(more) => Frame::Partial(more),
    })
}

async fn read_frame(s: &mut Stream, buf: &mut Vec<u8>, kind: u8, max: usize) -> Option<usize> {
    loop {
        let want = match frame_at(buf, kind, max)? {
            Frame::Whole(size) => return Some(size),
            Frame::Partial(more) => more,
        };
        buf.reserve(want);
        match s.read_buf(buf).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// Why a connection could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// TCP connect or the TLS handshake failed.
    Unreachable(io::Error),
    /// The node refused the login (its admin result code).
    Refused(u8),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Unreachable(e) => write!(f, "{e}"),
            OpenError::Refused(code) => {
                write!(f, "the node refused the login (result code {code})")
            }
        }
    }
}

/// How a client proves who it is.
enum Credentials {
    None,
    /// A user and the hash of the password; external users also send the password itself
    /// (over TLS only, as the server requires).
    Password {
        user: String,
        hash: String,
        clear: Option<String>,
    },
    /// The TLS client certificate is the identity.
    Pki,
}

struct Session {
    token: Arc<[u8]>,
    renew_at: Instant,
}

/// Opens connections for one client: the same TLS settings and one login session for every
/// runtime and path.
pub struct Dialer {
    tls: Option<TlsConnector>,
    /// The name a node's certificate must carry when its host gives none.
    default_tls_name: Option<String>,
    credentials: Credentials,
    session: Mutex<Option<Session>>,
}

impl Dialer {
    pub fn new(policy: &ClientPolicy) -> Result<Arc<Dialer>, String> {
        let hash = |password: &str| {
            bcrypt::hash_with_salt(password, HASH_COST, HASH_SALT)
                .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
                .map_err(|e| format!("cannot hash the password: {e}"))
        };
        let credentials = match &policy.auth_mode {
            AuthMode::None => Credentials::None,
            AuthMode::Internal(user, password) => Credentials::Password {
                user: user.clone(),
                hash: hash(password)?,
                clear: None,
            },
            AuthMode::External(user, password) | AuthMode::ExternalInsecure(user, password) => {
                Credentials::Password {
                    user: user.clone(),
                    hash: hash(password)?,
                    clear: Some(password.clone()),
                }
            }
            AuthMode::Pki => Credentials::Pki,
        };
        Ok(Arc::new(Dialer {
            tls: policy
                .tls_policy
                .as_ref()
                .map(|t| TlsConnector::from(t.config.clone())),
            default_tls_name: policy.cluster_name.clone(),
            credentials,
            session: Mutex::new(None),
        }))
    }

    /// A connection to `address`, TLS-wrapped (checked against `tls_name`) and logged in as
    /// the client's policy says.
    pub async fn open(&self, address: &str, tls_name: Option<&str>) -> Result<Stream, OpenError> {
        let tcp = TcpStream::connect(address)
            .await
            .map_err(OpenError::Unreachable)?;
        let _ = tcp.set_nodelay(true);
        let mut stream = match &self.tls {
            None => Stream::Plain(tcp),
            Some(connector) => {
                let name = tls_name
                    .or(self.default_tls_name.as_deref())
                    .unwrap_or_default();
                let name = ServerName::try_from(name.to_owned()).map_err(|e| {
                    OpenError::Unreachable(io::Error::new(io::ErrorKind::InvalidInput, e))
                })?;
                let tls = connector
                    .connect(name, tcp)
                    .await
                    .map_err(OpenError::Unreachable)?;
                Stream::Tls(Box::new(tls))
            }
        };
        self.log_in(&mut stream).await?;
        Ok(stream)
    }

    async fn log_in(&self, stream: &mut Stream) -> Result<(), OpenError> {
        let (user, hash, clear) = match &self.credentials {
            Credentials::None => return Ok(()),
            Credentials::Password { user, hash, clear } => {
                (Some(user.as_str()), Some(hash.as_str()), clear.as_deref())
            }
            Credentials::Pki => (None, None, None),
        };
        let now = Instant::now();
        let token = self
            .session
            .lock()
            .as_ref()
            .filter(|s| s.renew_at > now)
            .map(|s| s.token.clone());
        if let Some(token) = token {
            let mut fields: Vec<(u8, &[u8])> = Vec::with_capacity(2);
            if let Some(u) = user {
                fields.push((USER, u.as_bytes()));
            }
            fields.push((SESSION_TOKEN, &token));
            let (code, _) = admin(stream, AUTHENTICATE, &fields).await?;
            if code == OK || code == SECURITY_NOT_ENABLED {
                return Ok(());
            }
            let mut session = self.session.lock();
            if session.as_ref().is_some_and(|s| s.token == token) {
                *session = None;
            }
        }
        let mut fields: Vec<(u8, &[u8])> = Vec::with_capacity(3);
        if let (Some(u), Some(h)) = (user, hash) {
            fields.push((USER, u.as_bytes()));
            fields.push((CREDENTIAL, h.as_bytes()));
        }
        if let Some(c) = clear {
            fields.push((CLEAR_PASSWORD, c.as_bytes()));
        }
        let (code, answer) = admin(stream, LOGIN, &fields).await?;
        match code {
            SECURITY_NOT_ENABLED => Ok(()),
            OK => {
                if let Some(token) = field(&answer, SESSION_TOKEN) {
                    let lifetime = field(&answer, SESSION_TTL)
                        .and_then(|t| <[u8; 4]>::try_from(t).ok())
                        .map(|t| Duration::from_secs(u64::from(u32::from_be_bytes(t))))
                        .unwrap_or(DEFAULT_SESSION);
                    *self.session.lock() = Some(Session {
                        token: token.into(),
                        renew_at: Instant::now() + lifetime.saturating_sub(RENEW_BEFORE),
                    });
                }
                Ok(())
            }
            code => Err(OpenError::Refused(code)),
        }
    }
}

/// Send an admin command with `fields`; its result code and the reply's fields.
async fn admin(
    stream: &mut Stream,
    command: u8,
    fields: &[(u8, &[u8])],
) -> Result<(u8, Vec<u8>), OpenError> {
    let body: usize = 16 + fields.iter().map(|(_, d)| 5 + d.len()).sum::<usize>();
    let mut out = Vec::with_capacity(8 + body);
    out.extend_from_slice(&proto_header(PROTO_ADMIN, body));
    let mut head = [0u8; 16];
    head[2] = command;
    head[3] = u8::try_from(fields.len()).unwrap_or(u8::MAX);
    out.extend_from_slice(&head);
    for (id, data) in fields {
        let len = u32::try_from(data.len() + 1).unwrap_or(u32::MAX);
        out.extend_from_slice(&len.to_be_bytes());
        out.push(*id);
        out.extend_from_slice(data);
    }
    let lost = |what: &str| OpenError::Unreachable(io::Error::other(what));
    stream.send(&out).await.map_err(OpenError::Unreachable)?;
    let mut buf = Vec::with_capacity(256);
    let size = read_frame(stream, &mut buf, PROTO_ADMIN, MAX_ADMIN_REPLY)
        .await
        .ok_or_else(|| lost("no admin reply"))?;
    if size < 16 || buf.len() != 8 + size {
        return Err(lost("a malformed admin reply"));
    }
    let code = buf[9];
    buf.drain(..24);
    Ok((code, buf))
}

/// The data of field `id` in an admin reply's fields (`len(u32) id(u8) data`).
fn field(mut fields: &[u8], id: u8) -> Option<&[u8]> {
    while fields.len() >= 5 {
        let len = usize::try_from(u32::from_be_bytes(fields[..4].try_into().ok()?)).ok()?;
        let data = fields.get(5..4 + len)?;
        if fields[4] == id {
            return Some(data);
        }
        fields = &fields[4 + len..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_by_id_and_a_short_one_ends_the_search() {
        let mut f = Vec::new();
        for (id, data) in [
            (SESSION_TOKEN, &b"tok"[..]),
            (SESSION_TTL, &[0, 0, 1, 0][..]),
        ] {
            f.extend_from_slice(&u32::try_from(data.len() + 1).unwrap().to_be_bytes());
            f.push(id);
            f.extend_from_slice(data);
        }
        assert_eq!(field(&f, SESSION_TOKEN), Some(&b"tok"[..]));
        assert_eq!(field(&f, SESSION_TTL), Some(&[0, 0, 1, 0][..]));
        assert_eq!(field(&f, USER), None);
        assert_eq!(field(&f[..6], SESSION_TOKEN), None);
    }

    #[test]
    fn the_password_hash_is_the_protocols() {
        let policy = ClientPolicy {
            auth_mode: AuthMode::Internal("u".into(), "secret".into()),
            ..ClientPolicy::default()
        };
        let d = Dialer::new(&policy).unwrap();
        let Credentials::Password { hash, .. } = &d.credentials else {
            panic!("a password login");
        };
        assert!(hash.starts_with("$2a$10$"), "{hash}");
        assert_eq!(hash.len(), 60);
    }
}
