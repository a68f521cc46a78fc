//! Single-record reads and writes over the wire path's own connections (`pool`): one request,
//! and its reply read in one `recv` when it fits the connection's buffer.
//!
//! The crate's command path reads a reply's header and body with two exact reads after one
//! that finds nothing yet; a socket's readiness is only cleared by a short read, so each call
//! paid a `recv` that returned `EAGAIN`. Here a call costs one `send` and, usually, one `recv`.
//!
//! Only the plain cases come here (see [`plain_read`], [`plain_write`] and [`writable`]); any
//! other outcome than a record, "not found" or a write's success is a [`Miss`], and the caller
//! runs the call again through the crate, which reports it (its error, retries and timeouts).
//! Reads and puts are idempotent, so running one again is safe; a put sent without an answer
//! is reported in doubt if the crate's run then fails.

use std::sync::Arc;

use aerospike::policy::BasePolicy;
use aerospike::{Bin, Bins, Key, ReadPolicy, Record as AsRecord, Value, WritePolicy};
use tokio::time::{Duration, Instant};

use crate::conn::breaker::Tripped;
use crate::conn::pool::{NoLease, Pool};
use crate::convert::message::{self, partition_of};
use crate::convert::wire_chunk::WireChunk;
use crate::request::scan_request::{
    proto_header, AS_MSG, FIELD_NAMESPACE, FIELD_SET, HEADER_SIZE, INFO1_READ, OP_READ,
};

pub(crate) const INFO1_GET_ALL: u8 = 1 << 1;
const INFO2_WRITE: u8 = 1;
const INFO2_DELETE: u8 = 1 << 1;
const INFO1_NOBINDATA: u8 = 1 << 5;
pub(super) const FIELD_KEY: u8 = 2;
const FIELD_DIGEST: u8 = 4;
const OP_WRITE: u8 = 2;
const PARTITION_UNAVAILABLE: u8 = 11;
const NAMESPACE_NOT_FOUND: u8 = 20;
pub(crate) const OK: u8 = 0;
pub(crate) const KEY_NOT_FOUND: u8 = 2;

/// Why the wire path did not finish a call (see `fallback`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// Nothing was sent, or the reply is one this path does not read.
    NotSent,
    /// The server answered with this result code.
    Refused { code: u8, node: String },
    /// Sent without an answer: the connection was lost, or the time ran out.
    Lost { timed_out: bool },
    /// All of the node's connections (this many) stayed busy until the deadline.
    Busy { node: String, size: usize },
    /// No connection to the node could be opened (nothing was sent): `why`.
    Unreachable { node: String, why: String },
    /// No node of the table holds the partition (nothing was sent).
    NoNode { pid: u16 },
    /// The answer could not be read: `why`.
    Unreadable { why: String },
    /// The node's circuit breaker is open (nothing was sent).
    Tripped(Tripped),
}

const NOT_SENT: Miss = Miss::NotSent;

/// The particle type and bytes of a value this path writes (`None`: the crate writes it).
fn particle(v: &Value) -> Option<(u8, ValueBytes<'_>)> {
    Some(match v {
        Value::Nil => (0, ValueBytes::Slice(&[])),
        Value::Int(i) => (1, ValueBytes::Eight(i.to_be_bytes())),
        Value::Float(f) => (2, ValueBytes::Eight(f64::from(f).to_be_bytes())),
        Value::String(s) => (3, ValueBytes::Slice(s.as_bytes())),
        Value::Blob(b) => (4, ValueBytes::Slice(b)),
        Value::Bool(b) => (17, ValueBytes::One([u8::from(*b)])),
        _ => return None,
    })
}

pub(super) enum ValueBytes<'a> {
    Slice(&'a [u8]),
    Eight([u8; 8]),
    One([u8; 1]),
}

impl ValueBytes<'_> {
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            ValueBytes::Slice(s) => s,
            ValueBytes::Eight(b) => b,
            ValueBytes::One(b) => b,
        }
    }
}

/// Append a write op for each of `bins` (each [`writable`]); how many were written.
pub(crate) fn put_ops(out: &mut Vec<u8>, bins: &[Bin]) -> usize {
    let mut n = 0;
    for bin in bins {
        if let Some((ptype, value)) = particle(&bin.value) {
            op(out, OP_WRITE, ptype, bin.name.as_bytes(), value.bytes());
            n += 1;
        }
    }
    n
}

/// Whether this path can write `bins` (scalar values, names the wire can carry).
pub fn writable(bins: &[Bin]) -> bool {
    bins.len() <= usize::from(u16::MAX)
        && bins
            .iter()
            .all(|b| b.name.len() <= MAX_BIN_NAME && particle(&b.value).is_some())
}

/// Longest bin name; the crate refuses longer ones before sending (`InvalidArgumentError`).
pub(crate) const MAX_BIN_NAME: usize = 15;

/// A request's time limits: the client's (one attempt) and the one the server is told.
pub(super) fn limits(b: &BasePolicy) -> (Option<Instant>, u32) {
    let socket = crate::policy::attempt_ms(b);
    let until = (socket > 0).then(|| Instant::now() + Duration::from_millis(u64::from(socket)));
    let server = if b.total_timeout > 0 { socket } else { 0 };
    (until, server)
}

/// Header fields of one request message.
#[derive(Default)]
pub(super) struct Head {
    pub info1: u8,
    pub info2: u8,
    pub info3: u8,
    pub info4: u8,
    pub generation: u32,
    pub ttl: u32,
    pub timeout: u32,
    pub fields: u16,
    pub ops: u16,
}

pub(super) fn begin(out: &mut Vec<u8>, h: &Head) {
    out.clear();
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&[HEADER_SIZE, h.info1, h.info2, h.info3, h.info4, 0]);
    out.extend_from_slice(&h.generation.to_be_bytes());
    out.extend_from_slice(&h.ttl.to_be_bytes());
    out.extend_from_slice(&h.timeout.to_be_bytes());
    out.extend_from_slice(&h.fields.to_be_bytes());
    out.extend_from_slice(&h.ops.to_be_bytes());
}

pub(super) fn field(out: &mut Vec<u8>, kind: u8, parts: &[&[u8]]) {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    out.extend_from_slice(&u32::try_from(len + 1).unwrap_or(u32::MAX).to_be_bytes());
    out.push(kind);
    for p in parts {
        out.extend_from_slice(p);
    }
}

fn op(out: &mut Vec<u8>, kind: u8, ptype: u8, name: &[u8], value: &[u8]) {
    let size = u32::try_from(4 + name.len() + value.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&size.to_be_bytes());
    #[allow(clippy::cast_possible_truncation)]
    out.extend_from_slice(&[kind, ptype, 0, name.len() as u8]);
    out.extend_from_slice(name);
    out.extend_from_slice(value);
}

pub(super) fn finish(out: &mut [u8]) {
    let header = proto_header(AS_MSG, out.len() - 8);
    out[..8].copy_from_slice(&header);
}

/// Namespace, set, digest and (`send_key`) the user key; returns how many fields.
pub(super) fn key_fields(out: &mut Vec<u8>, key: &Key, user_key: Option<(u8, &[u8])>) {
    field(out, FIELD_NAMESPACE, &[key.namespace().as_bytes()]);
    if !key.set_name().is_empty() {
        field(out, FIELD_SET, &[key.set_name().as_bytes()]);
    }
    field(out, FIELD_DIGEST, &[&key.digest()]);
    if let Some((ptype, bytes)) = user_key {
        field(out, FIELD_KEY, &[&[ptype], bytes]);
    }
}

pub(super) fn key_field_count(key: &Key, user_key: bool) -> u16 {
    2 + u16::from(!key.set_name().is_empty()) + u16::from(user_key)
}

/// The user key as a key field carries it (`None`: a type keys are not sent as here).
pub(super) fn user_key_particle(v: &Value) -> Option<(u8, ValueBytes<'_>)> {
    match v {
        Value::Int(_) | Value::String(_) | Value::Blob(_) => particle(v),
        // a `bytes` key hashed as a string (`bytes_keys="string"`): sent as one
        Value::Unknown(3, b) => Some((3, ValueBytes::Slice(b))),
        _ => None,
    }
}

/// Run the request in `encode` on copy `sequence` of `key`'s partition (0: the master); the
/// reply's header and the connection (released once read).
pub(super) async fn call(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    key: &Key,
    sequence: usize,
    until: Option<Instant>,
    encode: impl FnOnce(&mut Vec<u8>),
) -> Result<
    (
        crate::conn::pool::Lease,
        usize,
        Arc<crate::conn::pool::NodeConns>,
    ),
    Miss,
> {
    let pid = partition_of(&key.digest());
    let route = pool.node_for(client, key.namespace(), pid, sequence);
    let node = match until {
        Some(at) => tokio::time::timeout_at(at, route).await.ok().flatten(),
        None => route.await,
    };
    let Some(node) = node else {
        if pool.lacks_namespace(key.namespace()) {
            return Err(Miss::Refused {
                code: NAMESPACE_NOT_FOUND,
                node: "every node of the cluster".to_owned(),
            });
        }
        return Err(Miss::NoNode { pid });
    };
    let mut lease = match pool.lease(&node, until).await {
        Ok(lease) => lease,
        Err(NoLease::Busy(size)) => {
            return Err(Miss::Busy {
                node: node.name().to_owned(),
                size,
            })
        }
        Err(NoLease::Unreachable(why)) => {
            pool.stale(key.namespace());
            return Err(Miss::Unreachable {
                node: format!("{} ({})", node.name(), node.address()),
                why: why.to_string(),
            });
        }
        Err(NoLease::Tripped(tripped)) => return Err(Miss::Tripped(tripped)),
    };
    encode(&mut lease.conn().out);
    let exchanged = match until {
        Some(at) => tokio::time::timeout_at(at, lease.conn().exchange(AS_MSG))
            .await
            .map_err(|_| {
                pool.failed(&node);
                Miss::Lost { timed_out: true }
            }),
        None => Ok(lease.conn().exchange(AS_MSG).await),
    };
    // A write error can come after the request's last byte left: that is a lost request too.
    match exchanged? {
        Some(size) => Ok((lease, size, node)),
        None => {
            pool.failed(&node);
            pool.stale(key.namespace());
            Err(Miss::Lost { timed_out: false })
        }
    }
}

/// Read `key`: the record, or `None` when it does not exist.
pub async fn get(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    policy: &ReadPolicy,
    key: &Key,
    sequence: usize,
    bins: &Bins,
) -> Result<Option<AsRecord>, Miss> {
    let names: &[String] = match bins {
        Bins::All => &[],
        Bins::Some(names) if names.iter().all(|n| n.len() <= MAX_BIN_NAME) => names,
        _ => return Err(NOT_SENT),
    };
    let (until, timeout) = limits(&policy.base_policy);
    let encode = |out: &mut Vec<u8>| {
        let head = Head {
            info1: if names.is_empty() {
                INFO1_READ | INFO1_GET_ALL
            } else {
                INFO1_READ
            },
            info2: 0,
            ttl: policy.base_policy.read_touch_ttl.into(),
            timeout,
            fields: key_field_count(key, false),
            ops: u16::try_from(names.len()).unwrap_or(u16::MAX),
            ..Head::default()
        };
        begin(out, &head);
        key_fields(out, key, None);
        for name in names {
            op(out, OP_READ, 0, name.as_bytes(), &[]);
        }
        finish(out);
    };
    let (mut lease, size, node) = call(pool, client, key, sequence, until, encode).await?;
    let conn = lease.conn();
    let whole = conn.buf.len() == 8 + size;
    let body = &conn.buf[8..8 + size];
    let m = message::locate(body, 0).map_err(|_| NOT_SENT)?;
    let done = whole && m.span.end == size;
    let out = match m.result_code {
        OK => {
            let mut chunk = WireChunk::with_capacity(1);
            chunk.push(body, &m, partition_of(&key.digest()), key.digest());
            let rec = chunk.records().first().ok_or(NOT_SENT)?;
            Some(chunk.to_record(rec).map_err(|_| NOT_SENT)?)
        }
        KEY_NOT_FOUND => None,
        code => return Err(refused(pool, key, code, &node)),
    };
    if done {
        lease.release(pool);
    }
    Ok(out)
}

/// Write `bins` to `key` (each [`writable`]).
pub async fn put(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    policy: &WritePolicy,
    key: &Key,
    bins: &[Bin],
) -> Result<(), Miss> {
    let user_key = key
        .user_key()
        .filter(|_| policy.send_key)
        .map(|v| user_key_particle(v).ok_or(NOT_SENT))
        .transpose()?;
    let (until, timeout) = limits(&policy.base_policy);
    let encode = |out: &mut Vec<u8>| {
        let head = Head {
            info1: 0,
            info2: INFO2_WRITE,
            ttl: policy.expiration.into(),
            timeout,
            fields: key_field_count(key, user_key.is_some()),
            ops: u16::try_from(bins.len()).unwrap_or(u16::MAX),
            ..Head::default()
        };
        begin(out, &head);
        let uk = user_key.as_ref().map(|(t, b)| (*t, b.bytes()));
        key_fields(out, key, uk);
        for bin in bins {
            if let Some((ptype, value)) = particle(&bin.value) {
                op(out, OP_WRITE, ptype, bin.name.as_bytes(), value.bytes());
            }
        }
        finish(out);
    };
    let (lease, size, node) = call(pool, client, key, 0, until, encode).await?;
    match answer(pool, lease, size)? {
        OK => Ok(()),
        code => Err(refused(pool, key, code, &node)),
    }
}

/// Whether `key` exists (read under `policy`, at copy `sequence` of its partition).
pub async fn exists(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    policy: &ReadPolicy,
    key: &Key,
    sequence: usize,
) -> Result<bool, Miss> {
    let (info1, info2) = (INFO1_READ | INFO1_NOBINDATA, 0);
    let ttl = policy.base_policy.read_touch_ttl.into();
    header_only(
        pool,
        client,
        &policy.base_policy,
        key,
        sequence,
        (info1, info2, ttl),
    )
    .await
}

/// Delete `key`; whether it existed.
pub async fn delete(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    policy: &WritePolicy,
    key: &Key,
) -> Result<bool, Miss> {
    let flags = (0, INFO2_WRITE | INFO2_DELETE, 0);
    header_only(pool, client, &policy.base_policy, key, 0, flags).await
}

/// A request of `key` alone, no bins, with header `(info1, info2, ttl)`, at copy `sequence`:
/// whether the record was there.
async fn header_only(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    base: &BasePolicy,
    key: &Key,
    sequence: usize,
    (info1, info2, ttl): (u8, u8, u32),
) -> Result<bool, Miss> {
    let (until, timeout) = limits(base);
    let encode = |out: &mut Vec<u8>| {
        let head = Head {
            info1,
            info2,
            ttl,
            timeout,
            fields: key_field_count(key, false),
            ops: 0,
            ..Head::default()
        };
        begin(out, &head);
        key_fields(out, key, None);
        finish(out);
    };
    let (lease, size, node) = call(pool, client, key, sequence, until, encode).await?;
    match answer(pool, lease, size)? {
        OK => Ok(true),
        KEY_NOT_FOUND => Ok(false),
        code => Err(refused(pool, key, code, &node)),
    }
}

/// The result code of a reply that carries no record; the connection goes back to the pool
/// when the reply was read whole.
fn answer(pool: &Pool, mut lease: crate::conn::pool::Lease, size: usize) -> Result<u8, Miss> {
    let conn = lease.conn();
    let whole = conn.buf.len() == 8 + size;
    let m =
        message::locate(&conn.buf[8..8 + size], 0).map_err(|_| Miss::Lost { timed_out: false })?;
    let (code, whole) = (m.result_code, whole && m.span.end == size);
    if whole && matches!(code, OK | KEY_NOT_FOUND) {
        lease.release(pool);
    }
    Ok(code)
}

/// Whether the server's refusal with `code` counts for the node's circuit breaker: its
/// timeout, key busy and device overload, as in the official clients.
pub(crate) fn counts_against_the_node(code: u8) -> bool {
    matches!(code, 9 | 14 | 18)
}

/// The miss of a refusal with `code` by `node`; a partition the node no longer holds marks
/// the table stale.
pub(super) fn refused(
    pool: &Arc<Pool>,
    key: &Key,
    code: u8,
    node: &crate::conn::pool::NodeConns,
) -> Miss {
    if code == PARTITION_UNAVAILABLE {
        pool.stale(key.namespace());
    }
    if counts_against_the_node(code) {
        pool.failed(node);
    }
    Miss::Refused {
        code,
        node: node.name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(head: &Head, key: &Key, user_key: Option<(u8, &[u8])>) -> Vec<u8> {
        let mut out = Vec::new();
        begin(&mut out, head);
        key_fields(&mut out, key, user_key);
        op(&mut out, OP_WRITE, 1, b"n", &5i64.to_be_bytes());
        finish(&mut out);
        out
    }

    #[test]
    fn a_put_request_carries_its_header_key_fields_and_bins() {
        let key = Key::new("test", "s", Value::from("k")).unwrap();
        let head = Head {
            info1: 0,
            info2: INFO2_WRITE,
            ttl: 300,
            timeout: 1000,
            fields: key_field_count(&key, true),
            ops: 1,
            ..Head::default()
        };
        let out = request(&head, &key, Some((3, b"k")));
        let proto = u64::from_be_bytes(out[..8].try_into().unwrap());
        assert_eq!(proto >> 56, 2);
        assert_eq!((proto >> 48) & 0xFF, 3);
        assert_eq!(proto & 0xFFFF_FFFF_FFFF, (out.len() - 8) as u64);
        let m = message::locate(&out[8..], 0).unwrap();
        assert_eq!(m.expiration, 300);
        assert_eq!(
            u32::from_be_bytes(out[8 + 14..8 + 18].try_into().unwrap()),
            1000
        );
        assert_eq!(m.digest, Some(key.digest()));
        assert_eq!(&out[8..][m.namespace.clone()], b"test");
        assert_eq!(&out[8..][m.set_name.clone()], b"s");
        assert_eq!(
            m.key.map(|(t, r)| (t, out[8..][r].to_vec())),
            Some((3, b"k".to_vec()))
        );
        let bins: Vec<_> = message::Bins::new(&out[8..][m.ops.clone()], m.n_ops).collect();
        assert_eq!(bins, vec![(&b"n"[..], 1, &5i64.to_be_bytes()[..])]);
    }

    #[test]
    fn only_scalar_bins_with_short_names_are_written_here() {
        assert!(writable(&[Bin::new("a", Value::Float(1.5.into()))]));
        assert!(writable(&[Bin::new("a", Value::Nil)]));
        assert!(!writable(&[Bin::new("a", Value::List(vec![]))]));
        assert!(!writable(&[Bin::new("a".repeat(16), Value::Int(1))]));
    }

    #[test]
    fn limits_follow_the_socket_and_total_timeouts() {
        let mut b = BasePolicy::default();
        (b.socket_timeout, b.total_timeout) = (0, 0);
        assert_eq!(limits(&b), (None, 0));
        (b.socket_timeout, b.total_timeout) = (200, 0);
        assert_eq!(limits(&b).1, 0);
        assert!(limits(&b).0.is_some());
        (b.socket_timeout, b.total_timeout) = (200, 1000);
        assert_eq!(limits(&b).1, 200);
        (b.socket_timeout, b.total_timeout, b.max_retries) = (0, 1000, 0);
        assert_eq!(limits(&b).1, 1000);
        // Without a socket timeout, the attempts left share what is left of the total.
        b.max_retries = 2;
        assert_eq!(limits(&b).1, 333);
        (b.total_timeout, b.max_retries) = (2, 1000);
        assert_eq!(limits(&b).1, 1);
    }
}
