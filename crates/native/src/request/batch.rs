//! Batch reads and puts over the wire path's own connections (`pool`): the keys grouped by the
//! node mastering their partition, one batch-index request per node, sent together, and each
//! reply read frame by frame until its last message. Records stay the server's bytes
//! ([`OwnedRecord`]) until Python asks for their bins.
//!
//! Only plain reads come here (see [`plain`]): all bins, header only, or named bins, without a
//! filter expression, transaction or compression; and plain puts (see [`plain_put`]): a write
//! of each bin under the default generation and exists policies. A row whose partition has no
//! known master, or whose node could not be asked or did not answer, is a [`Answer::Missed`]:
//! the caller runs it through the crate, or fails it, as `batch_wire` says.

use std::sync::Arc;

use aerospike::policy::{BatchPolicy, Concurrency};
use aerospike::Key;
use tokio::time::{Duration, Instant};

use crate::conn::pool::{NoLease, NodeConns, Pool};
use crate::convert::message::{self, partition_of, Message, INFO3_LAST};
use crate::convert::particle::{self, Bad};
use crate::convert::wire_chunk::OwnedRecord;
use crate::ops::wire::WireOps;
use crate::request::scan_request::OP_READ;
use crate::request::scan_request::{
    proto_header, AS_MSG, FIELD_NAMESPACE, FIELD_SET, HEADER_SIZE, INFO1_READ,
};
use crate::request::single::{Miss, FIELD_KEY, INFO1_GET_ALL, KEY_NOT_FOUND, MAX_BIN_NAME, OK};

const INFO1_BATCH: u8 = 1 << 3;
const INFO1_NOBINDATA: u8 = 1 << 5;
const FIELD_BATCH_INDEX: u8 = 41;
const BATCH_MSG_REPEAT: u8 = 1;
const BATCH_MSG_INFO: u8 = 2;
const BATCH_MSG_GEN: u8 = 4;
const BATCH_MSG_TTL: u8 = 8;
const INFO2_WRITE: u8 = 1;
const INFO2_RESPOND_ALL_OPS: u8 = 1 << 7;
/// Ask for a key's own error code when an error stops the batch (as the crate does).
const FLAG_KEY_ERRORS: u8 = 8;
const FLAG_INLINE: u8 = 1;
const FLAG_INLINE_SSD: u8 = 2;
const FLAG_RESPOND_ALL: u8 = 4;

/// What a row reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Read {
    All,
    Header,
    /// These bins (each name at most 15 bytes, at least one).
    Bins(Vec<String>),
}

impl Read {
    /// The same read as the crate's batch takes it.
    pub fn bins(&self) -> aerospike::Bins {
        match self {
            Read::All => aerospike::Bins::All,
            Read::Header => aerospike::Bins::None,
            Read::Bins(names) => aerospike::Bins::Some(names.clone()),
        }
    }
}

/// What a row does: read, write each bin (a put), or run a chain's ops.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    Read(Read),
    /// Bins [`crate::request::single::writable`] can write (at least one).
    Put(Vec<aerospike::Bin>),
    Ops(Arc<OpsJob>),
}

/// A chain's ops as this path sends them, and as the crate's batch runs them again when this
/// path misses the row.
#[derive(Debug, PartialEq)]
pub struct OpsJob {
    pub wire: WireOps,
    pub crate_ops: Vec<aerospike::operations::Operation>,
}

/// One row of a batch.
pub struct Ask {
    pub key: Key,
    pub job: Job,
    /// A read's read-touch TTL or a put's expiration, as the wire carries it.
    pub ttl: u32,
    /// A put stores the user key with the record.
    pub send_key: bool,
}

impl Ask {
    /// Whether the row writes.
    pub fn writes(&self) -> bool {
        match &self.job {
            Job::Read(_) => false,
            Job::Put(_) => true,
            Job::Ops(ops) => ops.wire.writes(),
        }
    }
}

/// What became of one row.
pub enum Answer {
    Found(OwnedRecord),
    /// A put was applied; the reply lists the bins it wrote.
    Written(OwnedRecord),
    /// A chain's ops ran: their answers, as an operate's.
    Operated(Box<aerospike::Record>),
    NotFound,
    /// The record holds a list or map nested deeper than the client reads (in this bin).
    TooDeep(String),
    /// The server's result code for the row, from this node (`name: address`).
    Refused {
        code: u8,
        node: Arc<str>,
    },
    /// The node's reply ended with this error, the batch's rather than a row's: the node's
    /// part of the batch stopped there (the rows after it are [`Answer::NoResponse`]).
    Stopped {
        code: u8,
        node: Arc<str>,
    },
    /// The node's reply ended without this row (the crate reports no response for it).
    NoResponse,
    /// The row's node was not asked, or did not answer.
    Missed(Miss),
}

/// What `bins` reads on this path (`None`: names the wire cannot carry).
pub fn read_of(bins: &aerospike::Bins) -> Option<Read> {
    Some(match bins {
        aerospike::Bins::All => Read::All,
        aerospike::Bins::None => Read::Header,
        aerospike::Bins::Some(n) if n.is_empty() => Read::Header,
        aerospike::Bins::Some(n) if n.iter().all(|b| b.len() <= MAX_BIN_NAME) => {
            Read::Bins(n.clone())
        }
        aerospike::Bins::Some(_) => return None,
    })
}

/// The time limits of one batch: the whole call's deadline, the per-read socket timeout and
/// the timeout the server is told.
#[derive(Clone, Copy)]
struct Limits {
    total: Option<Instant>,
    socket: Option<Duration>,
    server_ms: u32,
}

impl Limits {
    fn of(p: &BatchPolicy, started: Instant) -> Self {
        let b = &p.base_policy;
        let ms = |v: u32| Duration::from_millis(u64::from(v));
        let socket = match (b.socket_timeout, b.total_timeout) {
            (0, 0) => 0,
            (d, 0) | (0, d) => d,
            (s, t) => s.min(t),
        };
        Limits {
            total: (b.total_timeout > 0).then(|| started + ms(b.total_timeout)),
            socket: (socket > 0).then(|| ms(socket)),
            server_ms: if b.total_timeout > 0 { socket } else { 0 },
        }
    }

    /// When the next read must have ended.
    fn next_read(&self) -> Option<Instant> {
        let socket = self.socket.map(|s| Instant::now() + s);
        match (socket, self.total) {
            (Some(s), Some(t)) => Some(s.min(t)),
            (s, t) => s.or(t),
        }
    }
}

async fn within<F: std::future::Future>(until: Option<Instant>, f: F) -> Option<F::Output> {
    match until {
        Some(at) => tokio::time::timeout_at(at, f).await.ok(),
        None => Some(f.await),
    }
}

/// Run `asks` (all reads, or all puts); one answer per ask, in order.
pub async fn read(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    policy: &BatchPolicy,
    asks: &[Ask],
) -> Vec<Answer> {
    let limits = Limits::of(policy, Instant::now());
    let mut groups: Vec<(Arc<NodeConns>, Vec<usize>)> = Vec::new();
    let mut answers: Vec<Answer> = Vec::with_capacity(asks.len());
    for (i, ask) in asks.iter().enumerate() {
        answers.push(Answer::Missed(Miss::NotSent));
        let pid = partition_of(&ask.key.digest());
        let route = pool.node_for(client, ask.key.namespace(), pid, 0);
        let Some(node) = within(limits.total, route).await.flatten() else {
            continue;
        };
        match groups.iter_mut().find(|(n, _)| Arc::ptr_eq(n, &node)) {
            Some((_, rows)) => rows.push(i),
            None => groups.push((node, vec![i])),
        }
    }
    let runs = groups
        .iter()
        .map(|(node, rows)| ask_node(pool, policy, node, rows, asks, limits));
    let outcomes = match policy.concurrency {
        Concurrency::Sequential => {
            let mut out = Vec::with_capacity(groups.len());
            for run in runs {
                out.push(run.await);
            }
            out
        }
        Concurrency::Parallel => futures::future::join_all(runs).await,
    };
    for ((_, rows), got) in groups.iter().zip(outcomes) {
        for (&i, answer) in rows.iter().zip(got) {
            // A node that did not hold the partition, or could not be reached: the view may be
            // wrong about where the namespace's partitions are.
            if matches!(
                answer,
                Answer::Refused {
                    code: PARTITION_UNAVAILABLE,
                    ..
                } | Answer::Missed(Miss::Lost { .. })
            ) {
                pool.stale(asks[i].key.namespace());
            }
            answers[i] = answer;
        }
    }
    answers
}

const PARTITION_UNAVAILABLE: u8 = 11;

/// Ask `node` for the rows `rows` of `asks`: send the request and read the reply until its
/// last message; the rows' answers, in order.
async fn ask_node(
    pool: &Arc<Pool>,
    policy: &BatchPolicy,
    node: &Arc<NodeConns>,
    rows: &[usize],
    asks: &[Ask],
    limits: Limits,
) -> Vec<Answer> {
    let mut got: Vec<Option<Answer>> = rows.iter().map(|_| None).collect();
    let label: Arc<str> = format!("{}: {}", node.name(), node.address()).into();
    let writes = rows.iter().any(|&i| asks[i].writes());
    let exchange = async {
        let mut lease = match pool.lease(node, limits.next_read()).await {
            Ok(lease) => lease,
            Err(NoLease::Busy(size)) => {
                return Err(Miss::Busy {
                    node: node.name().to_owned(),
                    size,
                })
            }
            Err(NoLease::Unreachable(_)) => return Err(Miss::NotSent),
            Err(NoLease::Tripped(tripped)) => return Err(Miss::Tripped(tripped)),
        };
        let conn = lease.conn();
        let asked = rows.iter().map(|&i| &asks[i]);
        encode(&mut conn.out, policy, asked, limits.server_ms);
        let lost = |timed_out| Miss::Lost { timed_out };
        let mut size = within(limits.next_read(), conn.exchange(AS_MSG))
            .await
            .ok_or(lost(true))?
            .ok_or(lost(false))?;
        let mut at = 0;
        loop {
            let body = &conn.buf[at + 8..at + 8 + size];
            // A reply this path cannot read: the crate runs reads again (they are
            // idempotent); writes were sent without a readable answer.
            let last = parse_frame(body, rows, asks, &label, &mut got).map_err(|_| {
                if writes {
                    lost(false)
                } else {
                    Miss::NotSent
                }
            })?;
            if last {
                break;
            }
            (at, size) = within(limits.next_read(), conn.next_frame(at + 8 + size, AS_MSG))
                .await
                .ok_or(lost(true))?
                .ok_or(lost(false))?;
        }
        if conn.buf.len() == at + 8 + size {
            lease.release(pool);
        }
        Ok(())
    };
    let miss = exchange.await.err();
    if matches!(miss, Some(Miss::Lost { .. })) {
        pool.failed(node);
    }
    got.into_iter()
        .map(|a| match (a, &miss) {
            // The crate asks a node of one key with a single-record read, which it retries on
            // some refusals: `fallback` decides, as for a get.
            (Some(Answer::Refused { code, node } | Answer::Stopped { code, node }), _)
                if rows.len() == 1 =>
            {
                Answer::Missed(Miss::Refused {
                    code,
                    node: node.to_string(),
                })
            }
            (Some(a), _) => a,
            (None, Some(miss)) => Answer::Missed(miss.clone()),
            (None, None) => Answer::NoResponse,
        })
        .collect()
}

/// The batch-index request for `asks` (the rows of one node, in their reply-index order).
fn encode<'a>(
    out: &mut Vec<u8>,
    policy: &BatchPolicy,
    asks: impl ExactSizeIterator<Item = &'a Ask>,
    server_ms: u32,
) {
    out.clear();
    out.extend_from_slice(&[0; 8]);
    out.extend_from_slice(&[HEADER_SIZE, INFO1_BATCH, 0, 0, 0, 0, 0, 0, 0, 0]);
    let touch: u32 = policy.base_policy.read_touch_ttl.into();
    out.extend_from_slice(&touch.to_be_bytes());
    out.extend_from_slice(&server_ms.to_be_bytes());
    out.extend_from_slice(&1u16.to_be_bytes());
    out.extend_from_slice(&0u16.to_be_bytes());
    let field_at = out.len();
    out.extend_from_slice(&[0, 0, 0, 0, FIELD_BATCH_INDEX]);
    let count = u32::try_from(asks.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&count.to_be_bytes());
    out.push(flags(policy));
    let mut prev: Option<&Ask> = None;
    for (i, ask) in asks.enumerate() {
        out.extend_from_slice(&u32::try_from(i).unwrap_or(u32::MAX).to_be_bytes());
        out.extend_from_slice(&ask.key.digest());
        if prev.is_some_and(|p| same_header(p, ask)) {
            out.push(BATCH_MSG_REPEAT);
        } else {
            row_header(out, ask);
        }
        prev = Some(ask);
    }
    let field_size = u32::try_from(out.len() - field_at - 4).unwrap_or(u32::MAX);
    out[field_at..field_at + 4].copy_from_slice(&field_size.to_be_bytes());
    let header = proto_header(AS_MSG, out.len() - 8);
    out[..8].copy_from_slice(&header);
}

fn flags(p: &BatchPolicy) -> u8 {
    let mut f = FLAG_KEY_ERRORS;
    if p.allow_inline {
        f |= FLAG_INLINE;
    }
    if p.allow_inline_ssd {
        f |= FLAG_INLINE_SSD;
    }
    if p.respond_all_keys {
        f |= FLAG_RESPOND_ALL;
    }
    f
}

/// Whether `b` asks exactly what `a` asks of another key (sent as a repeat).
fn same_header(a: &Ask, b: &Ask) -> bool {
    a.ttl == b.ttl
        && matches!(a.job, Job::Read(_) | Job::Ops(_))
        && a.job == b.job
        && a.key.namespace() == b.key.namespace()
        && a.key.set_name() == b.key.set_name()
}

fn row_header(out: &mut Vec<u8>, ask: &Ask) {
    let (read_attr, names): (u8, &[String]) = match &ask.job {
        Job::Read(Read::All) => (INFO1_READ | INFO1_GET_ALL, &[]),
        Job::Read(Read::Header) => (INFO1_READ | INFO1_NOBINDATA, &[]),
        Job::Read(Read::Bins(names)) => (INFO1_READ, names),
        Job::Put(bins) => return put_header(out, ask, bins),
        Job::Ops(ops) => return ops_header(out, ask, &ops.wire),
    };
    out.extend_from_slice(&[BATCH_MSG_INFO | BATCH_MSG_TTL, read_attr, 0, 0]);
    out.extend_from_slice(&ask.ttl.to_be_bytes());
    let ops = u16::try_from(names.len()).unwrap_or(u16::MAX);
    names_fields(out, ask, ops);
    for name in names {
        let size = u32::try_from(4 + name.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&size.to_be_bytes());
        #[allow(clippy::cast_possible_truncation)]
        out.extend_from_slice(&[OP_READ, 0, 0, name.len() as u8]);
        out.extend_from_slice(name.as_bytes());
    }
}

/// A put row: a write of each bin, under the default generation and exists policies.
fn put_header(out: &mut Vec<u8>, ask: &Ask, bins: &[aerospike::Bin]) {
    let write_attr = INFO2_WRITE | INFO2_RESPOND_ALL_OPS;
    out.extend_from_slice(&[
        BATCH_MSG_INFO | BATCH_MSG_GEN | BATCH_MSG_TTL,
        0,
        write_attr,
        0,
    ]);
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&ask.ttl.to_be_bytes());
    let ops_at = out.len() + 2;
    names_fields(out, ask, 0);
    let user_key = ask.key.user_key().filter(|_| ask.send_key);
    if let Some((ptype, bytes)) = user_key.and_then(crate::request::single::user_key_particle) {
        crate::request::single::field(out, FIELD_KEY, &[&[ptype], bytes.bytes()]);
        let fields_at = ops_at - 2;
        out[fields_at..ops_at].copy_from_slice(&3u16.to_be_bytes());
    }
    let ops = u16::try_from(crate::request::single::put_ops(out, bins)).unwrap_or(u16::MAX);
    out[ops_at..ops_at + 2].copy_from_slice(&ops.to_be_bytes());
}

/// A chain's row: its ops after the header a read row (no op writes) or a write row has,
/// with the read bits the crate's batch gives the same ops.
fn ops_header(out: &mut Vec<u8>, ask: &Ask, ops: &WireOps) {
    if ops.writes() {
        let mut read_attr = ops.read_attr;
        if read_attr & INFO1_GET_ALL != 0 {
            read_attr &= !INFO1_NOBINDATA;
        }
        out.extend_from_slice(&[
            BATCH_MSG_INFO | BATCH_MSG_GEN | BATCH_MSG_TTL,
            read_attr,
            INFO2_WRITE | INFO2_RESPOND_ALL_OPS,
            0,
        ]);
        out.extend_from_slice(&0u16.to_be_bytes());
    } else {
        out.extend_from_slice(&[BATCH_MSG_INFO | BATCH_MSG_TTL, ops.read_attr, 0, 0]);
    }
    out.extend_from_slice(&ask.ttl.to_be_bytes());
    names_fields(out, ask, ops.count);
    out.extend_from_slice(&ops.bytes);
}

/// A row's field and op counts, then its namespace and set fields.
fn names_fields(out: &mut Vec<u8>, ask: &Ask, ops: u16) {
    out.extend_from_slice(&2u16.to_be_bytes());
    out.extend_from_slice(&ops.to_be_bytes());
    for (kind, text) in [
        (FIELD_NAMESPACE, ask.key.namespace()),
        (FIELD_SET, ask.key.set_name()),
    ] {
        let size = u32::try_from(text.len() + 1).unwrap_or(u32::MAX);
        out.extend_from_slice(&size.to_be_bytes());
        out.push(kind);
        out.extend_from_slice(text.as_bytes());
    }
}

/// Read one frame of a node's reply into `got` (indexed as `rows`); whether it held the last
/// message.
fn parse_frame(
    body: &[u8],
    rows: &[usize],
    asks: &[Ask],
    label: &Arc<str>,
    got: &mut [Option<Answer>],
) -> Result<bool, Bad> {
    let mut at = 0;
    while at < body.len() {
        let m = message::locate(body, at)?;
        let index = u32::from_be_bytes([body[at + 14], body[at + 15], body[at + 16], body[at + 17]])
            as usize;
        at = m.span.end;
        let last = m.info3 & INFO3_LAST != 0;
        // The end marker: a last message that reports no row's failure.
        if last
            && matches!(
                m.result_code,
                OK | KEY_NOT_FOUND | FILTERED_OUT | UDF_FAILED
            )
        {
            return Ok(true);
        }
        let slot = got
            .get_mut(index)
            .ok_or_else(|| Bad::Malformed(format!("batch row index {index} out of range")))?;
        if last {
            // Any other last message: an error that stopped the node's part of the batch.
            *slot = Some(Answer::Stopped {
                code: m.result_code,
                node: label.clone(),
            });
            return Ok(true);
        }
        *slot = Some(match m.result_code {
            OK if matches!(asks[rows[index]].job, Job::Ops(_)) => operated(body, &m)?,
            OK => {
                let ask = &asks[rows[index]];
                match found(body, &m, &ask.key) {
                    Answer::Found(rec) if ask.writes() => Answer::Written(rec),
                    answer => answer,
                }
            }
            KEY_NOT_FOUND if !asks[rows[index]].writes() => Answer::NotFound,
            code => Answer::Refused {
                code,
                node: label.clone(),
            },
        });
    }
    Ok(false)
}

const FILTERED_OUT: u8 = 27;
const UDF_FAILED: u8 = 100;

/// A chain's row that ran: the answers of its ops, unless a list or map in them nests deeper
/// than the client reads.
fn operated(body: &[u8], m: &Message) -> Result<Answer, Bad> {
    match crate::request::operate::record(body, m) {
        Ok(rec) => Ok(Answer::Operated(Box::new(rec))),
        Err(crate::request::operate::Bad::TooDeep(bin)) => Ok(Answer::TooDeep(bin)),
        Err(crate::request::operate::Bad::Malformed(why)) => Err(Bad::Malformed(why)),
    }
}

/// A found row: its record, unless a list or map in it nests deeper than the client reads.
fn found(body: &[u8], m: &Message, key: &Key) -> Answer {
    let bins = message::Bins::new(&body[m.ops.clone()], m.n_ops);
    for (name, ptype, value) in bins {
        if matches!(ptype, particle::LIST | particle::MAP) && particle::nests_too_deep(value) {
            return Answer::TooDeep(String::from_utf8_lossy(name).into_owned());
        }
    }
    Answer::Found(OwnedRecord::from_message(
        body,
        m,
        partition_of(&key.digest()),
        key.digest(),
    ))
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
