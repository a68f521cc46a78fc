//! Operate (and touch) over the SDK's own connections: the op list as `ops::wire` encoded it,
//! under any write policy but a transaction, compression or error details (see [`operable`]).
//! The reply is read as the crate reads an operate's: every op's answer in `results`, in
//! order, and per bin the answers of its ops (several become a `MultiResult`).

use std::sync::Arc;

use aerospike::policy::{CommitLevel, GenerationPolicy, ReadModeAp, RecordExistsAction};
use aerospike::{IndexMap, Key, Record as AsRecord, Value, WritePolicy};

use super::single::{
    begin, call, field, finish, key_field_count, key_fields, limits, refused, user_key_particle,
    Head, Miss, KEY_NOT_FOUND, OK,
};
use crate::conn::pool::Pool;
use crate::convert::depth::TooDeep;
use crate::convert::message;
use crate::convert::particle;
use crate::ops::wire::{expression_bytes, WireOps};

const FIELD_FILTER_EXP: u8 = 43;
const INFO1_XDR: u8 = 1 << 4;
const INFO1_READ_MODE_AP_ALL: u8 = 1 << 6;
const INFO2_GENERATION: u8 = 1 << 2;
const INFO2_GENERATION_GT: u8 = 1 << 3;
const INFO2_DURABLE_DELETE: u8 = 1 << 4;
const INFO2_CREATE_ONLY: u8 = 1 << 5;
const INFO3_COMMIT_MASTER: u8 = 1 << 1;
const INFO3_UPDATE_ONLY: u8 = 1 << 3;
const INFO3_CREATE_OR_REPLACE: u8 = 1 << 4;
const INFO3_REPLACE_ONLY: u8 = 1 << 5;
const INFO4_ON_LOCKING_ONLY: u8 = 1 << 4;

/// The request header of `ops` under `p`, as a server reads a write (or, with no write among
/// the ops, a read) of them.
pub(super) fn head(p: &WritePolicy, ops: &WireOps) -> Head {
    let b = &p.base_policy;
    let mut h = Head {
        info1: ops.read_attr,
        info2: ops.info2(p.respond_per_each_op),
        ops: ops.count,
        ..Head::default()
    };
    if matches!(b.read_mode_ap, ReadModeAp::All) && !ops.record_write {
        h.info1 |= INFO1_READ_MODE_AP_ALL;
    }
    if !ops.writes() {
        h.ttl = b.read_touch_ttl.into();
        return h;
    }
    match p.record_exists_action {
        RecordExistsAction::Update => {}
        RecordExistsAction::UpdateOnly => h.info3 |= INFO3_UPDATE_ONLY,
        RecordExistsAction::Replace => h.info3 |= INFO3_CREATE_OR_REPLACE,
        RecordExistsAction::ReplaceOnly => h.info3 |= INFO3_REPLACE_ONLY,
        RecordExistsAction::CreateOnly => h.info2 |= INFO2_CREATE_ONLY,
    }
    match p.generation_policy {
        GenerationPolicy::None => {}
        GenerationPolicy::ExpectGenEqual => {
            h.generation = p.generation;
            h.info2 |= INFO2_GENERATION;
        }
        GenerationPolicy::ExpectGenGreater => {
            h.generation = p.generation;
            h.info2 |= INFO2_GENERATION_GT;
        }
    }
    if matches!(p.commit_level, CommitLevel::CommitMaster) {
        h.info3 |= INFO3_COMMIT_MASTER;
    }
    if p.durable_delete {
        h.info2 |= INFO2_DURABLE_DELETE;
    }
    if p.on_locking_only {
        h.info4 |= INFO4_ON_LOCKING_ONLY;
    }
    if p.xdr {
        h.info1 |= INFO1_XDR;
    }
    h.ttl = p.expiration.into();
    h
}

/// What an operate's answer holds.
pub enum Answer {
    Record(Box<AsRecord>),
    /// No record, and no op writes (or `ops` deletes it).
    NotFound,
    /// A value nested deeper than the client reads.
    TooDeep(TooDeep),
}

/// Run `ops` on `key` (at copy `sequence` of its partition when they only read).
pub async fn operate(
    pool: &Arc<Pool>,
    client: &aerospike::Client,
    policy: &WritePolicy,
    key: &Key,
    sequence: usize,
    ops: &WireOps,
) -> Result<Answer, Miss> {
    let writes = ops.writes();
    let user_key = key
        .user_key()
        .filter(|_| policy.send_key && writes && !ops.delete)
        .map(|v| user_key_particle(v).ok_or(Miss::NotSent))
        .transpose()?;
    let filter = match &policy.base_policy.filter_expression {
        Some(e) => Some(expression_bytes(e).map_err(|why| Miss::Unreadable { why })?),
        None => None,
    };
    let (until, timeout) = limits(&policy.base_policy);
    let encode = |out: &mut Vec<u8>| {
        let mut h = head(policy, ops);
        h.timeout = timeout;
        h.fields = key_field_count(key, user_key.is_some()) + u16::from(filter.is_some());
        begin(out, &h);
        key_fields(out, key, user_key.as_ref().map(|(t, b)| (*t, b.bytes())));
        if let Some(f) = &filter {
            field(out, FIELD_FILTER_EXP, &[f]);
        }
        out.extend_from_slice(&ops.bytes);
        finish(out);
    };
    let sequence = if writes { 0 } else { sequence };
    let (mut lease, size, node) = call(pool, client, key, sequence, until, encode).await?;
    let conn = lease.conn();
    let whole = conn.buf.len() == 8 + size;
    let body = &conn.buf[8..8 + size];
    let m = message::locate(body, 0).map_err(|e| Miss::Unreadable {
        why: format!("{e:?}"),
    })?;
    let done = whole && m.span.end == size;
    let out = match m.result_code {
        OK => match record(body, &m) {
            Ok(r) => Answer::Record(Box::new(r)),
            Err(Bad::TooDeep(bin)) => Answer::TooDeep(TooDeep { bin: Some(bin) }),
            Err(Bad::Malformed(why)) => return Err(Miss::Unreadable { why }),
        },
        KEY_NOT_FOUND if !writes || ops.delete => Answer::NotFound,
        code => return Err(refused(pool, key, code, &node)),
    };
    if done {
        lease.release(pool);
    }
    Ok(out)
}

/// Why an answer's record could not be read: a value nested too deeply (in this bin), or
/// malformed bytes.
pub(super) enum Bad {
    TooDeep(String),
    Malformed(String),
}

/// The record of an operate's answer: every op's value in `results`; per named bin its
/// values, several as a `MultiResult`, nil ones kept so they line up with the ops.
pub(super) fn record(body: &[u8], m: &message::Message) -> Result<AsRecord, Bad> {
    let n = usize::from(m.n_ops);
    let mut results = Vec::with_capacity(n);
    let mut bins: IndexMap<String, Value> = IndexMap::with_capacity(n);
    for (name, ptype, bytes) in message::Bins::new(&body[m.ops.clone()], m.n_ops) {
        let name = String::from_utf8_lossy(name).into_owned();
        let v = particle::decode(ptype, bytes).map_err(|e| match e {
            particle::Bad::TooDeep => Bad::TooDeep(name.clone()),
            particle::Bad::Malformed(why) => Bad::Malformed(why),
        })?;
        results.push(v.clone());
        if name.is_empty() {
            continue;
        }
        match bins.get_mut(&name) {
            Some(Value::MultiResult(list)) => list.push(v),
            Some(prev) => *prev = Value::MultiResult(vec![prev.clone(), v]),
            None => {
                bins.insert(name, v);
            }
        }
    }
    Ok(AsRecord::new(
        None,
        bins,
        Some(results),
        m.generation,
        m.expiration,
    ))
}
