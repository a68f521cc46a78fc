//! A scan or index query run over our own connections: rounds of per-node requests until
//! every partition is done. Each round asks the nodes which partitions they master, sends each
//! node its share (whole, or after the last record delivered: its digest and, in an index
//! query, its bval), and reads the replies into chunks that wait in the stream's bounded
//! channel. A partition a node could not finish (node lost, partition unavailable) is asked
//! again in the next round, after the last record delivered from it, so no record is skipped
//! or repeated.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use aerospike::Client;
use tokio::io::{AsyncReadExt, BufReader};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::cluster::partitions::{Node, PARTITIONS};
use crate::cluster::view::{Table, TABLE_AGE};
use crate::conn::breaker::MAX_ERROR_RATE;
use crate::conn::pool::{Conn, NoLease, Pool};
use crate::convert::chunk::Batch;
use crate::convert::message::{self, partition_of, INFO3_LAST, INFO3_PARTITION_DONE};
use crate::convert::particle::Bad;
use crate::convert::token::Cursor;
use crate::convert::wire_chunk::WireChunk;
use crate::exec::completion::Failure;
use crate::request::redelivery::{Mode, Redelivery};
use crate::request::scan_request::{Request, AS_MSG};

/// The server's answer to a query naming an index it does not have.
const INDEX_NOT_FOUND: u8 = 201;
const KEY_NOT_FOUND: u8 = 2;
const TIMEOUT: u8 = 9;
const PARTITION_UNAVAILABLE: u8 = 11;
const FILTERED_OUT: u8 = 27;
const NAMESPACE_NOT_FOUND: i32 = 20;
/// Largest reply message read (the server's own limit on a proto is far below).
const MAX_PROTO: usize = 128 << 20;

/// A scan: what to ask, which partitions, and how hard to try.
pub struct Plan {
    pub request: Request,
    pub begin: usize,
    pub count: usize,
    /// Partitions already read up to a cursor (from a resume token).
    pub resume: BTreeMap<u16, Cursor>,
    /// Which records a server can send again.
    pub repeats: Mode,
    pub max_records: u64,
    pub chunk_size: usize,
    pub max_retries: usize,
    pub sleep_between_retries: Duration,
    pub socket_timeout: Option<Duration>,
    pub total_timeout: Option<Duration>,
}

pub type Sender = mpsc::Sender<Result<Batch, Failure>>;

#[derive(Clone, Copy)]
struct Part {
    pid: u16,
    /// The last record delivered.
    cursor: Option<Cursor>,
    done: bool,
    /// The node asked for it this round could not serve it.
    unavailable: bool,
}

/// Why a node's round ended early.
enum Stop {
    /// The stream was closed: stop everything.
    Closed,
    /// The server refused the scan: the stream fails with this.
    Fatal(Failure),
    /// The node was lost or timed out: its unfinished partitions go to the next round.
    Retry(Failure),
}

fn coded(code: i32, message: impl Into<String>) -> Failure {
    Failure::Coded(code, message.into())
}

fn lost(node: &Node, e: &std::io::Error) -> Stop {
    Stop::Retry(coded(-8, format!("scan of node {} lost: {e}", node.name())))
}

fn timed_out(node: &Node) -> Stop {
    Stop::Retry(coded(
        i32::from(TIMEOUT),
        format!("scan of node {} timed out", node.name()),
    ))
}

fn malformed(node: &Node, b: Bad) -> Stop {
    match b {
        Bad::Malformed(m) => Stop::Fatal(coded(-2, format!("node {}: {m}", node.name()))),
        Bad::TooDeep => Stop::Fatal(coded(-2, "too deep")),
    }
}

/// Run `plan`, sending chunks (then an error, if it fails) to `tx`.
pub async fn run(client: &Client, pool: &std::sync::Arc<Pool>, plan: Plan, tx: &Sender) {
    let deadline = plan.total_timeout.map(|t| Instant::now() + t);
    let mut parts: Vec<Part> = (plan.begin..plan.begin + plan.count)
        .filter_map(|p| u16::try_from(p).ok())
        .map(|pid| Part {
            pid,
            cursor: plan.resume.get(&pid).copied(),
            done: false,
            unavailable: false,
        })
        .collect();
    let mut seen = Redelivery::new(plan.repeats);
    for (pid, c) in &plan.resume {
        seen.is_new(*pid, c.digest, c.bval);
    }
    let sent = AtomicU64::new(0);
    let task_id = task_id();
    let mut attempt = 0;
    let ns = plan.request.namespace.as_str();
    let mut previous: Option<std::sync::Arc<Table>> = None;
    loop {
        // After a failed round, the nodes are asked again where the partitions are.
        let table = match &previous {
            None => pool.table(client, ns).await,
            Some(t) => {
                let newer = pool.newer_table(client, ns, t);
                match deadline {
                    Some(at) => tokio::time::timeout_at(at, newer)
                        .await
                        .unwrap_or_else(|_| t.clone()),
                    None => newer.await,
                }
            }
        };
        previous = Some(table.clone());
        let map = &table.map;
        if map.lacks_namespace() {
            let message = format!("namespace {ns:?} is not served by any node of the cluster");
            let _ = tx.send(Err(coded(NAMESPACE_NOT_FOUND, message))).await;
            return;
        }
        let mut shares: Vec<Vec<Part>> = vec![Vec::new(); map.nodes.len()];
        let mut unrouted = Vec::new();
        for part in parts.drain(..).filter(|p| !p.done) {
            match map.master[usize::from(part.pid) % PARTITIONS] {
                Some(i) => shares[i].push(part),
                None => unrouted.push(part),
            }
        }
        let rounds = shares
            .into_iter()
            .zip(&map.nodes)
            .filter(|(share, _)| !share.is_empty())
            .map(|(share, node)| {
                let ctx = Ctx {
                    plan: &plan,
                    tx,
                    sent: &sent,
                    pool,
                    task_id,
                    deadline,
                };
                let seen = seen.split(share.iter().map(|p| p.pid));
                node_round(node, ctx, share, seen)
            })
            .collect::<Vec<_>>();
        let mut last = None;
        for (share, node_seen, stop) in futures::future::join_all(rounds).await {
            parts.extend(share);
            seen.absorb(node_seen);
            match stop {
                Ok(()) => {}
                Err(Stop::Closed) => return,
                Err(Stop::Fatal(f)) => {
                    let _ = tx.send(Err(f)).await;
                    return;
                }
                Err(Stop::Retry(f)) => last = Some(f),
            }
        }
        // Partitions no node claims: a node joined or left, and the cluster's nodes are seen
        // again at the next tend, so the next round waits for it.
        let pause = if unrouted.is_empty() {
            plan.sleep_between_retries
        } else {
            plan.sleep_between_retries.max(TABLE_AGE)
        };
        parts.extend(unrouted);
        let limit_reached =
            plan.max_records > 0 && sent.load(Ordering::Relaxed) >= plan.max_records;
        if limit_reached || parts.iter().all(|p| p.done) {
            return;
        }
        attempt += 1;
        let late = deadline.is_some_and(|d| Instant::now() + pause >= d);
        if !crate::request::retry::round_after(attempt, plan.max_retries, late) {
            let f = last.unwrap_or_else(|| {
                let left = parts.iter().filter(|p| !p.done).count();
                coded(
                    i32::from(PARTITION_UNAVAILABLE),
                    format!("{left} partitions unavailable after {attempt} attempts"),
                )
            });
            let _ = tx.send(Err(f)).await;
            return;
        }
        tokio::time::sleep(pause).await;
    }
}

/// A fresh id for a job the servers run (a scan, a background query).
pub(super) fn task_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    #[allow(clippy::cast_possible_truncation)]
    let t = nanos as u64;
    t ^ NEXT.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
}

/// What every node's round of one scan shares.
struct Ctx<'a> {
    plan: &'a Plan,
    tx: &'a Sender,
    sent: &'a AtomicU64,
    pool: &'a std::sync::Arc<Pool>,
    task_id: u64,
    deadline: Option<Instant>,
}

async fn node_round(
    node: &Node,
    ctx: Ctx<'_>,
    mut share: Vec<Part>,
    seen: Redelivery,
) -> (Vec<Part>, Redelivery, Result<(), Stop>) {
    let Ctx {
        plan,
        tx,
        sent,
        pool,
        task_id,
        deadline,
    } = ctx;
    let until = deadline.or_else(|| plan.socket_timeout.map(|t| Instant::now() + t));
    let conns = pool.conns_of(node);
    let mut lease = match pool.lease(&conns, until).await {
        Ok(lease) => lease,
        Err(NoLease::Busy(n)) => {
            let message = format!(
                "Timeout: connection pool exhausted: every connection to node {} stayed busy \
                 until the deadline (max_conns_per_node={n}, the client's budget for all its \
                 calls: raise it, lower the concurrency, or close open streams, which hold a \
                 connection per node)",
                node.name()
            );
            let stop = Stop::Fatal(coded(i32::from(TIMEOUT), message));
            return (share, seen, Err(stop));
        }
        Err(NoLease::Unreachable(e)) => {
            let message = format!("scan of node {} could not connect: {e}", node.name());
            return (share, seen, Err(Stop::Retry(coded(-8, message))));
        }
        Err(NoLease::Tripped(tripped)) => {
            let stop = Stop::Fatal(coded(MAX_ERROR_RATE, tripped.message()));
            return (share, seen, Err(stop));
        }
    };
    let mut reader = NodeReader {
        node,
        plan,
        tx,
        sent,
        deadline,
        index: vec![usize::MAX; PARTITIONS],
        chunk: WireChunk::with_capacity(plan.chunk_size),
        seen,
        finished: false,
    };
    let stop = reader.read(lease.conn(), &mut share, task_id).await;
    if matches!(stop, Err(Stop::Retry(_))) {
        pool.failed(&conns);
    }
    // Records parsed before a failure are good: they go out before the retry.
    let flushed = reader.flush().await;
    if stop.is_ok() && reader.finished {
        lease.release(pool);
    }
    (share, reader.seen, stop.and(flushed))
}

struct NodeReader<'a> {
    node: &'a Node,
    plan: &'a Plan,
    tx: &'a Sender,
    sent: &'a AtomicU64,
    deadline: Option<Instant>,
    /// Partition id → index in the share.
    index: Vec<usize>,
    chunk: WireChunk,
    seen: Redelivery,
    /// The node's last message was read and nothing follows it: the connection can serve
    /// another request.
    finished: bool,
}

impl NodeReader<'_> {
    /// The next read's time limit: the socket timeout, within the scan's deadline.
    fn limit(&self) -> Option<Instant> {
        let socket = self.plan.socket_timeout.map(|t| Instant::now() + t);
        match (socket, self.deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    async fn within<T>(
        &self,
        f: impl std::future::Future<Output = std::io::Result<T>>,
    ) -> Result<T, Stop> {
        let r = match self.limit() {
            Some(at) => tokio::time::timeout_at(at, f)
                .await
                .map_err(|_| timed_out(self.node))?,
            None => f.await,
        };
        r.map_err(|e| lost(self.node, &e))
    }

    async fn read(
        &mut self,
        conn: &mut Conn,
        share: &mut [Part],
        task_id: u64,
    ) -> Result<(), Stop> {
        let mut whole = Vec::new();
        let mut after = Vec::new();
        for (i, p) in share.iter_mut().enumerate() {
            p.unavailable = false;
            self.index[usize::from(p.pid)] = i;
            match p.cursor {
                Some(c) => after.push(c),
                None => whole.push(p.pid),
            }
        }
        let max = match self.plan.max_records {
            0 => 0,
            m => m.saturating_sub(self.sent.load(Ordering::Relaxed)).max(1),
        };
        let request = self.plan.request.encode(task_id, &whole, &after, max);
        let traffic = conn.place.traffic.clone();
        let mut stream = BufReader::with_capacity(64 * 1024, &mut conn.stream);
        self.within(stream.get_mut().send(&request)).await?;
        traffic.sent(request.len());
        let mut body = Vec::new();
        loop {
            let mut header = [0u8; 8];
            self.within(stream.read_exact(&mut header)).await?;
            let proto = u64::from_be_bytes(header);
            let size = usize::try_from(proto & 0xFFFF_FFFF_FFFF).unwrap_or(usize::MAX);
            if header[1] != AS_MSG || size > MAX_PROTO {
                return Err(malformed(
                    self.node,
                    Bad::Malformed(format!("a reply of type {} and {size} bytes", header[1])),
                ));
            }
            body.resize(size, 0);
            self.within(stream.read_exact(&mut body)).await?;
            traffic.received(8 + size);
            if self.take(&body, share).await? {
                self.finished &= stream.buffer().is_empty();
                return Ok(());
            }
        }
    }

    /// Take the messages of one reply; true once the node's last message came.
    async fn take(&mut self, body: &[u8], share: &mut [Part]) -> Result<bool, Stop> {
        let mut at = 0;
        while at < body.len() {
            let m = message::locate(body, at).map_err(|b| malformed(self.node, b))?;
            at = m.span.end;
            let done = m.info3 & INFO3_PARTITION_DONE != 0;
            match m.result_code {
                0 => {}
                KEY_NOT_FOUND | FILTERED_OUT => continue,
                PARTITION_UNAVAILABLE if done => {
                    let slot = self.index.get(m.generation as usize).copied();
                    if let Some(p) = slot.and_then(|i| share.get_mut(i)) {
                        p.unavailable = true;
                    }
                    continue;
                }
                code => return Err(Stop::Fatal(self.refused(code))),
            }
            if m.info3 & INFO3_LAST != 0 {
                // The node read every partition it was asked for but those it could not serve.
                for p in share.iter_mut() {
                    p.done = !p.unavailable;
                }
                self.finished = at == body.len();
                return Ok(true);
            }
            if done {
                continue;
            }
            let Some(digest) = m.digest else { continue };
            let pid = partition_of(&digest);
            if !self.seen.is_new(pid, digest, m.bval) {
                continue;
            }
            // Every node streams at once: a record is counted before it is taken, so the limit
            // holds across them (a record past it stays unread, its partition's cursor before it).
            let n = self.sent.fetch_add(1, Ordering::Relaxed) + 1;
            let limit = self.plan.max_records;
            if limit > 0 && n > limit {
                return Ok(true);
            }
            if let Some(p) = share.get_mut(self.index[usize::from(pid)]) {
                p.cursor = Some(Cursor {
                    digest,
                    bval: m.bval,
                });
            }
            self.chunk.push(body, &m, pid, digest);
            if self.chunk.len() >= self.plan.chunk_size {
                self.flush().await?;
            }
            if limit > 0 && n >= limit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The failure of a node's refusal with `code`, naming what was asked of it.
    fn refused(&self, code: u8) -> Failure {
        let r = &self.plan.request;
        let what = match &r.index {
            Some(i) => format!(
                "query on {} of namespace {:?} set {:?}",
                i.about, r.namespace, r.set_name
            ),
            None => format!("scan of namespace {:?} set {:?}", r.namespace, r.set_name),
        };
        let node = self.node.name();
        let message = match (code, &r.index) {
            (INDEX_NOT_FOUND, Some(i)) => format!(
                "no secondary index for {} in namespace {:?} set {:?} (node {node} answered \
                 error {code}): create one first",
                i.about, r.namespace, r.set_name
            ),
            _ => format!("{what}: node {node} answered error {code}"),
        };
        coded(i32::from(code), message)
    }

    /// Hand the chunk built so far to the stream (waiting while its buffer is full).
    async fn flush(&mut self) -> Result<(), Stop> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(
            &mut self.chunk,
            WireChunk::with_capacity(self.plan.chunk_size),
        );
        self.tx
            .send(Ok(Batch::Wire(chunk)))
            .await
            .map_err(|_| Stop::Closed)
    }
}
