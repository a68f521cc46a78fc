//! Scans and queries: partition filters with digest resume, max records, bin projection,
//! secondary-index filters, filter expressions, background writes; replies streamed in chunks.

use std::collections::HashSet;
use std::ops::Bound;
use std::sync::Arc;

use crate::clock::{cl_secs, now_ms};
use crate::conn::FrameSink;
use crate::engine_ops::{self, View};
use crate::query_kind::QueryKind;
use crate::record::rc;
use crate::sindex::bval::{self, Position};
use crate::sindex::{self, indexed_value, Collection, Filter, IndexType, SIndex, Span};
use crate::store::{Digest, Namespace, Record, N_PARTITIONS};
use crate::wire::*;
use crate::{aggregate, background, cluster, Shared};

/// Whether `msg` is a background job or an aggregation: work that runs to completion before
/// its reply, off the runtime thread.
pub fn is_long(msg: &Msg<'_>) -> bool {
    QueryKind::of(msg).is_ok_and(|k| k != QueryKind::Basic)
}

/// Runs a background job or an aggregation on the calling (blocking) thread, writing its reply
/// in frames of about [`FRAME_CHUNK`] bytes and passing each to `emit` (see [`in_frames`]).
pub fn handle_long(
    msg: &Msg<'_>,
    shared: &Shared,
    out: &mut Vec<u8>,
    emit: &mut dyn FnMut(&mut Vec<u8>) -> bool,
) {
    in_frames(out, emit, |out, after_message| match plan(msg, shared) {
        Err(code) => header_only(out, INFO3_LAST, code, 0),
        Ok(p) => run_long(msg, shared, &p, out, after_message),
    });
}

/// A background job answers one final message once it has run; an aggregation streams its
/// results first.
fn run_long(
    msg: &Msg<'_>,
    shared: &Shared,
    p: &Plan<'_>,
    out: &mut Vec<u8>,
    after_message: &mut dyn FnMut(&mut Vec<u8>) -> bool,
) {
    match QueryKind::of(msg) {
        Ok(kind) if kind.is_background() => background::run(msg, shared, p, kind),
        _ => aggregate::respond(msg, shared, p, out, after_message),
    }
    header_only(out, INFO3_LAST, rc::OK, 0);
}

/// Records-per-second pacing (field 10): once `sent` records are out, the time to wait.
struct Pace {
    per_second: u32,
    started: std::time::Instant,
}

impl Pace {
    fn new(msg: &Msg<'_>) -> Pace {
        let per_second = msg
            .fields
            .get(field::RECORDS_PER_SECOND)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_be_bytes);
        Pace {
            per_second,
            started: std::time::Instant::now(),
        }
    }

    fn wait(&self, sent: u64) -> Option<std::time::Duration> {
        if self.per_second == 0 {
            return None;
        }
        let due = std::time::Duration::from_secs_f64(sent as f64 / f64::from(self.per_second));
        due.checked_sub(self.started.elapsed())
            .filter(|w| !w.is_zero())
    }
}

/// Where a partition resumes: strictly after `digest` in a scan, strictly after
/// `(bval, digest)` in an index query.
#[derive(Clone, Copy)]
pub(crate) struct Resume {
    digest: Digest,
    bval: i64,
}

/// What a scan/query selects.
pub(crate) struct Plan<'a> {
    pub(crate) ns: &'a Namespace,
    /// Set id to match (None = whole namespace; Some(None) = a set never written).
    pub(crate) set: Option<Option<u16>>,
    pub(crate) index: Option<(Arc<SIndex>, Filter)>,
    pub(crate) filter_exp: Option<&'a [u8]>,
    pub(crate) max_records: u64,
    /// (partition, where to resume it).
    pub(crate) partitions: Vec<(usize, Option<Resume>)>,
    pub(crate) send_done: bool,
    /// The request named its partitions (else: every partition this node masters).
    pub(crate) explicit: bool,
    /// Counts each record the request examines (`query_records_read` in the statistics).
    pub(crate) records_read: &'a std::sync::atomic::AtomicU64,
}

/// Runs the scan/query in `msg`, streaming results to `sink`. False when the peer is gone.
pub async fn handle(
    msg: &Msg<'_>,
    shared: &Shared,
    out: &mut Vec<u8>,
    sink: &mut FrameSink<'_>,
) -> bool {
    out.clear();
    let at = begin_frame(out);
    match plan(msg, shared) {
        Err(code) => header_only(out, INFO3_LAST, code, 0),
        Ok(p) if is_long(msg) => run_long(msg, shared, &p, out, &mut |_| true),
        Ok(p) => {
            let mut frame = at;
            let mut sent = 0u64;
            let pace = Pace::new(msg);
            for &(pid, resume) in &p.partitions {
                let scanned = cluster::gated(shared, || {
                    serves(shared, &p, pid)
                        .then(|| scan_partition(&p, msg, pid, resume, &mut sent, out))
                });
                // As a real server: a partition is reported done only when this node cannot
                // serve it (result 11), so the client asks the partition's owner.
                let done = match scanned {
                    Some(done) => done,
                    None => {
                        if p.send_done {
                            ReplyMsg::begin(out).finish(
                                out,
                                INFO3_PARTITION_DONE,
                                rc::PARTITION_UNAVAILABLE,
                                pid as u32,
                                0,
                                0,
                            );
                        }
                        true
                    }
                };
                let wait = pace.wait(sent);
                if out.len() > FRAME_CHUNK || wait.is_some() {
                    end_frame(out, frame, PROTO_MSG);
                    if !sink.send(out).await {
                        return false;
                    }
                    frame = begin_frame(out);
                    if let Some(w) = wait {
                        tokio::time::sleep(w).await;
                    }
                }
                if !done {
                    break;
                }
            }
            header_only(out, INFO3_LAST, rc::OK, 0);
            end_frame(out, frame, PROTO_MSG);
            return sink.send(out).await;
        }
    }
    end_frame(out, at, PROTO_MSG);
    sink.send(out).await
}

fn plan<'a>(msg: &Msg<'a>, shared: &'a Shared) -> Result<Plan<'a>, u8> {
    let f = &msg.fields;
    refused(msg)?;
    let ns = f
        .get(field::NAMESPACE)
        .and_then(|n| shared.store.namespace(n))
        .ok_or(rc::NAMESPACE_NOT_FOUND)?;
    let set_name = f.get(field::SET).filter(|s| !s.is_empty());
    let set = set_name.map(|s| ns.find_set(s));
    let set_str = set_name
        .and_then(|s| std::str::from_utf8(s).ok())
        .unwrap_or("");
    let index = match sindex::request::requested(f, &ns.name, set_str, &shared.sindexes)? {
        None => None,
        Some((idx, filter)) => {
            ns.forget_indexes(|def| shared.sindexes.holds(def));
            Some((ns.index(&idx), filter))
        }
    };
    let mut partitions = Vec::new();
    if let Some(pids) = f.get(field::PID_ARRAY) {
        for c in pids.chunks_exact(2) {
            partitions.push((
                usize::from(u16::from_le_bytes([c[0], c[1]])) % N_PARTITIONS,
                None,
            ));
        }
    }
    partitions.extend(resumes(f, index.is_some())?);
    let explicit = !partitions.is_empty();
    if !explicit {
        partitions = (0..N_PARTITIONS).map(|p| (p, None)).collect();
    }
    let max_records = match f.get(field::MAX_RECORDS) {
        Some(b) => u64::from_be_bytes(b.try_into().map_err(|_| rc::PARAMETER)?),
        None => 0,
    };
    Ok(Plan {
        ns,
        set,
        index,
        filter_exp: f.get(field::FILTER_EXP),
        max_records,
        partitions,
        send_done: explicit || msg.header.info3 & INFO3_PARTITION_DONE != 0,
        explicit,
        records_read: &shared.stats.records_read,
    })
}

/// The partitions to resume (field DIGEST_ARRAY): an index query needs one bval per digest
/// (field BVAL_ARRAY), as a real server does.
fn resumes(f: &Fields<'_>, indexed: bool) -> Result<Vec<(usize, Option<Resume>)>, u8> {
    let digests = f.get(field::DIGEST_ARRAY).unwrap_or_default();
    let bvals = f.get(field::BVAL_ARRAY);
    let bvals: Vec<i64> = match bvals {
        Some(_) if digests.is_empty() => return Err(rc::PARAMETER),
        Some(b) if indexed => b
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect(),
        None if indexed && !digests.is_empty() => return Err(rc::PARAMETER),
        _ => vec![0; digests.len() / 20],
    };
    if bvals.len() * 20 != digests.len() {
        return Err(rc::PARAMETER);
    }
    Ok(digests
        .chunks_exact(20)
        .zip(bvals)
        .map(|(c, bval)| {
            let mut digest = [0u8; 20];
            digest.copy_from_slice(c);
            let pid = crate::store::partition_of(&digest);
            (pid, Some(Resume { digest, bval }))
        })
        .collect())
}

/// What a real server refuses: a request of no known kind, a short query that is paced, a job
/// or an aggregation sent as short, an aggregation with a filter expression, and a filter
/// expression that is not well formed and typed.
fn refused(msg: &Msg<'_>) -> Result<(), u8> {
    let short = msg.header.info1 & INFO1_SHORT_QUERY != 0;
    let kind = QueryKind::of(msg)?;
    if kind != QueryKind::Basic && short {
        return Err(rc::PARAMETER);
    }
    if kind == QueryKind::Aggregate && msg.fields.get(field::FILTER_EXP).is_some() {
        return Err(rc::UNSUPPORTED_FEATURE);
    }
    if short && msg.fields.get(field::RECORDS_PER_SECOND).is_some() {
        return Err(rc::PARAMETER);
    }
    // A filter expression is built when the job starts, so a malformed or mistyped one is
    // refused even where no record would meet it.
    if let Some(exp) = msg.fields.get(field::FILTER_EXP) {
        engine_ops::check_filter(exp)?;
    }
    // The ops a foreground query projects: reads it knows, or the query is refused (never a
    // record answered without what an op asked for).
    if !kind.is_background() {
        for op in msg.ops.iter() {
            let known = match op.op {
                op::READ | op::BIT_READ | op::HLL_READ | op::EXP_READ => true,
                op::CDT_READ => engine::cdt::readable(op.data),
                _ => false,
            };
            if !known {
                return Err(rc::PARAMETER);
            }
        }
    }
    Ok(())
}

/// Whether this node answers for partition `pid` in the plan.
pub(crate) fn serves(shared: &Shared, p: &Plan<'_>, pid: usize) -> bool {
    if p.explicit {
        cluster::holds_here(shared, pid)
    } else {
        cluster::master_here(shared, pid)
    }
}

/// Whether the plan selects `rec`; in an index query, at the entry of bval `at` (one of its
/// matching elements has that bval).
fn selected(p: &Plan<'_>, digest: &Digest, rec: &Record, now_cl: u32, at: Option<i64>) -> bool {
    p.records_read
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if rec.expired(now_cl) {
        return false;
    }
    match p.set {
        Some(Some(id)) if rec.set_id != id => return false,
        Some(None) => return false,
        _ => {}
    }
    if p.index.is_none() && p.filter_exp.is_none() {
        return true;
    }
    let set = p.ns.set_name(rec.set_id);
    let view = View::stored(digest, rec, &set);
    if let Some((idx, filter)) = &p.index {
        let Some(value) = indexed_value(idx, &view) else {
            return false;
        };
        let mut bvals = filter.matching(&value, idx.collection).filter_map(bval::of);
        if !at.is_some_and(|b| bvals.any(|x| x == b)) {
            return false;
        }
    }
    p.filter_exp
        .is_none_or(|exp| engine_ops::filter_matches(exp, &view).unwrap_or(false))
}

/// Appends the selected records of one partition; false when max records stopped it early.
fn scan_partition(
    p: &Plan<'_>,
    msg: &Msg<'_>,
    pid: usize,
    resume: Option<Resume>,
    sent: &mut u64,
    out: &mut Vec<u8>,
) -> bool {
    if let Some((idx, filter)) = &p.index {
        return query_partition(p, msg, pid, (idx, filter), resume, sent, out);
    }
    let now_cl = cl_secs(now_ms());
    let part = p.ns.read(pid);
    // Descending digest order, resuming strictly below the given digest, as a real server.
    let upper = match &resume {
        Some(r) => Bound::Excluded(&r.digest),
        None => Bound::Unbounded,
    };
    let mut set = SetName::default();
    let mut ahead = Vec::with_capacity(AHEAD);
    let mut write_ahead = |ahead: &mut Vec<(&Digest, &Record)>, sent: &mut u64| {
        warm(ahead);
        for &(digest, rec) in ahead.iter() {
            write_record(p.ns, set.of(p.ns, rec.set_id), msg, digest, rec, None, out);
        }
        *sent += ahead.len() as u64;
        ahead.clear();
    };
    for (digest, rec) in part.range::<Digest, _>((Bound::Unbounded, upper)).rev() {
        if p.max_records > 0 && *sent + ahead.len() as u64 >= p.max_records {
            write_ahead(&mut ahead, sent);
            return false;
        }
        let Some(rec) = crate::txn::committed(rec) else {
            continue;
        };
        if !selected(p, digest, rec, now_cl, None) || !has_a_named_bin(msg, rec) {
            continue;
        }
        ahead.push((digest, rec));
        if ahead.len() == AHEAD {
            write_ahead(&mut ahead, sent);
        }
    }
    write_ahead(&mut ahead, sent);
    true
}

/// Records of a scan selected before any of them is written (see [`warm`]).
const AHEAD: usize = 32;

/// Reads a byte of each bin and key of `records`. Their bins live apart from the partition's
/// map, so writing records one by one waits for one cache miss after another; touched here
/// together, the misses overlap, and writing them finds the bytes in the cache.
fn warm(records: &[(&Digest, &Record)]) {
    let mut touched = 0u8;
    for (_, rec) in records {
        for b in rec.bins.iter().map(|b| &b.value).chain(&rec.key) {
            touched ^= b.data.first().copied().unwrap_or(b.ptype);
        }
    }
    std::hint::black_box(touched);
}

/// The name of the set of the record written last, looked up again only when the set changes
/// (a lookup locks the namespace's set list and copies the name).
#[derive(Default)]
struct SetName {
    id: u16,
    name: String,
}

impl SetName {
    fn of(&mut self, ns: &Namespace, id: u16) -> &str {
        if id != self.id {
            (self.id, self.name) = (id, ns.set_name(id));
        }
        &self.name
    }
}

/// [`scan_partition`] for an index query: each record sent with its bval, in (bval, digest)
/// order, resuming strictly after the given position.
fn query_partition(
    p: &Plan<'_>,
    msg: &Msg<'_>,
    pid: usize,
    index: (&Arc<SIndex>, &Filter),
    resume: Option<Resume>,
    sent: &mut u64,
    out: &mut Vec<u8>,
) -> bool {
    let now_cl = cl_secs(now_ms());
    let mut set = SetName::default();
    each_indexed(p, pid, index, resume, now_cl, |digest, rec, b| {
        if p.max_records > 0 && *sent >= p.max_records {
            return false;
        }
        if !has_a_named_bin(msg, rec) {
            return true;
        }
        write_record(
            p.ns,
            set.of(p.ns, rec.set_id),
            msg,
            digest,
            rec,
            Some(b),
            out,
        );
        *sent += 1;
        true
    })
}

/// Calls `f` with each record of partition `pid` the plan selects at `now_cl`.
pub(crate) fn each_selected(
    p: &Plan<'_>,
    pid: usize,
    now_cl: u32,
    mut f: impl FnMut(&Digest, &Record),
) {
    if let Some((idx, filter)) = &p.index {
        each_indexed(p, pid, (idx, filter), None, now_cl, |d, r, _| {
            f(d, r);
            true
        });
        return;
    }
    let part = p.ns.read(pid);
    part.iter()
        .filter_map(|(d, r)| Some((d, crate::txn::committed(r)?)))
        .filter(|(d, r)| selected(p, d, r, now_cl, None))
        .for_each(|(d, r)| f(d, r));
}

/// [`each_selected`] for an index query: the partition's index entries in the filter's span,
/// in (bval, digest) order strictly after `resume`; each record once, at the first entry after
/// `resume` of one of its matching elements, with that entry's bval.
fn each_indexed(
    p: &Plan<'_>,
    pid: usize,
    (idx, filter): (&Arc<SIndex>, &Filter),
    resume: Option<Resume>,
    now_cl: u32,
    mut f: impl FnMut(&Digest, &Record, i64) -> bool,
) -> bool {
    let geo = idx.itype == IndexType::Geo;
    let (low, high) = match filter.span() {
        Span::Bvals(lo, hi) => (
            Position::new(lo, [0; 20], geo),
            Position::new(hi, [0xFF; 20], geo),
        ),
        Span::Every => (Position::FIRST, Position::LAST),
        Span::Nothing => return true,
    };
    let lower = match resume.map(|r| Position::new(r.bval, r.digest, geo)) {
        Some(after) if after >= low => Bound::Excluded(after),
        _ => Bound::Included(low),
    };
    // A collection index holds a record once per distinct element; as a real server, a
    // request sends it once, at its first matching entry after the resume point.
    let mut sent = (idx.collection != Collection::Default).then(HashSet::new);
    p.ns.with_index(pid, idx, |records, entries| {
        for at in entries.range(lower, high) {
            let (digest, b) = (at.digest(), at.bval(geo));
            let Some(rec) = records.get(digest).and_then(crate::txn::committed) else {
                continue;
            };
            if sent.as_ref().is_some_and(|s| s.contains(digest))
                || !selected(p, digest, rec, now_cl, Some(b))
            {
                continue;
            }
            if let Some(s) = sent.as_mut() {
                s.insert(*digest);
            }
            if !f(digest, rec, b) {
                return false;
            }
        }
        true
    })
}

/// Whether `rec` holds one of the bins a request names, when it names bins only: as a real
/// server, a record with none of them is not sent.
fn has_a_named_bin(msg: &Msg<'_>, rec: &Record) -> bool {
    msg.header.info1 & INFO1_NOBINDATA != 0
        || msg.ops.is_empty()
        || msg
            .ops
            .iter()
            .any(|op| op.op != op::READ || rec.bin(op.name).is_some())
}

fn write_record(
    ns: &Namespace,
    set: &str,
    msg: &Msg<'_>,
    digest: &Digest,
    rec: &Record,
    bval: Option<i64>,
    out: &mut Vec<u8>,
) {
    let mut reply = ReplyMsg::begin(out);
    reply.field(out, field::DIGEST, digest);
    if let Some(b) = bval {
        reply.field(out, field::BVAL_ARRAY, &b.to_le_bytes());
    }
    reply.field(out, field::NAMESPACE, ns.name.as_bytes());
    if rec.set_id != 0 {
        reply.field(out, field::SET, set.as_bytes());
    }
    if let Some(k) = &rec.key {
        reply.typed_field(out, field::KEY, k.ptype, &k.data);
    }
    if msg.header.info1 & INFO1_NOBINDATA == 0 {
        if msg.ops.is_empty() {
            for b in &rec.bins {
                reply.op(out, b.name.as_bytes(), b.value.ptype, &b.value.data);
            }
        } else {
            for op in msg.ops.iter() {
                let value = match op.op {
                    op::READ => rec.bin(op.name).cloned(),
                    op::EXP_READ => {
                        let view = View::stored(digest, rec, set);
                        engine_ops::exp_read(op.data, &view).ok().flatten()
                    }
                    _ => engine_ops::cdt(op.op, rec.bin(op.name), op.data)
                        .ok()
                        .and_then(|(_, v)| v),
                };
                if let Some(v) = value {
                    reply.op(out, op.name, v.ptype, &v.data);
                }
            }
        }
    }
    reply.finish(out, 0, rc::OK, u32::from(rec.generation), rec.void_time, 0);
}
