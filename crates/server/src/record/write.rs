//! A write: the record's checks in a real server's order, each op applied to a working copy
//! of its bins, then the record stored (or removed).

use bytes::Bytes;
use engine::cdt::BinChange;
use engine::particle_type as pt;
use engine::Particle;

use super::{all_bins, check_filter, emit, rc, uses_exp, view, Outcome, RecReq};
use crate::bins::{self, BinSet};
use crate::clock::cl_secs;
use crate::engine_ops;
use crate::store::{void_time_for, BinName, Digest, Namespace, Partition, Record};
use crate::wire::*;

/// Largest record accepted (bytes, approximate stored size).
const MAX_RECORD_SIZE: usize = 8 * 1024 * 1024;
/// Most ops a write may carry (more is a parameter error, as on a real server).
const MAX_WRITE_OPS: usize = 32 * 1024;
/// The write must find the record (update-only or replace-only).
const UPDATE_OR_REPLACE: u8 = INFO3_UPDATE_ONLY | INFO3_REPLACE_ONLY;

pub fn write(
    ns: &Namespace,
    part: &mut Partition,
    digest: &Digest,
    req: &RecReq<'_>,
    now: u64,
    reply: &mut ReplyMsg,
    out: &mut Vec<u8>,
) -> Outcome {
    let now_cl = cl_secs(now);
    if req.ops.len() > MAX_WRITE_OPS {
        return Outcome::err(rc::PARAMETER);
    }
    let durable = req.info2 & INFO2_DURABLE_DELETE != 0;
    if durable && req.info2 & INFO2_DELETE != 0 && !ns.durable_deletes {
        return Outcome::err(rc::ENTERPRISE_ONLY);
    }
    // As a real strong-consistency namespace (without `strong-consistency-allow-expunge`).
    if ns.strong_consistency && !durable && req.info2 & INFO2_DELETE != 0 {
        return Outcome::err(rc::FORBIDDEN);
    }
    if part.get(digest).is_some_and(|r| r.expired(now_cl)) {
        part.remove(digest);
        ns.count_change(-1);
    }
    let existing = part.get(digest);
    // As a real server: existence first (a delete, a touch op, update/replace-only), then
    // create-only, then the generation.
    let replace = req.info3 & (INFO3_CREATE_OR_REPLACE | INFO3_REPLACE_ONLY) != 0;
    let touches = req.ops.iter().any(|o| o.op == op::TOUCH);
    if replace
        && req
            .ops
            .iter()
            .any(|o| matches!(o.op, op::TOUCH | op::DELETE))
    {
        return Outcome::err(rc::PARAMETER);
    }
    // As a real server: every op but a touch names a valid bin (or none), before anything
    // about the record is checked.
    if req
        .ops
        .iter()
        .any(|o| o.op != op::TOUCH && !BinName::is_valid(o.name))
    {
        return Outcome::err(rc::BIN_NAME);
    }
    let must_exist = touches || req.info2 & INFO2_DELETE != 0 || req.info3 & UPDATE_OR_REPLACE != 0;
    if must_exist && existing.is_none() {
        return Outcome::err(rc::KEY_NOT_FOUND);
    }
    if req.info2 & INFO2_CREATE_ONLY != 0 && existing.is_some() {
        return Outcome::err(rc::KEY_EXISTS);
    }
    let old_gen = existing.map_or(0, |r| u32::from(r.generation));
    if req.info2 & INFO2_GENERATION != 0 && req.generation != old_gen {
        return Outcome::err(rc::GENERATION);
    }
    if req.info2 & INFO2_GENERATION_GT != 0 && req.generation <= old_gen {
        return Outcome::err(rc::GENERATION);
    }
    if let Some(rec) = existing {
        if let Err(e) = check_filter(ns, digest, rec, req.filter) {
            return Outcome::err(e);
        }
    }
    if req.info2 & INFO2_DELETE != 0 {
        part.remove(digest); // it exists: checked above
        ns.count_change(-1);
        return Outcome::err(rc::OK);
    }
    if !crate::ttl::is_valid(req.ttl) {
        return Outcome::err(rc::PARAMETER);
    }
    let mut work = Work {
        bins: match existing {
            Some(r) if !replace => BinSet::new(r.bins.clone()),
            _ => BinSet::default(),
        },
        dirty: replace,
        existed: existing.is_some(),
        header_only: req.info1 & (INFO1_NOBINDATA | INFO1_GET_ALL) == INFO1_NOBINDATA,
    };
    let set_name = match existing {
        _ if !uses_exp(req) => String::new(),
        Some(r) => ns.set_name(r.set_id),
        None => String::from_utf8_lossy(req.set).into_owned(),
    };
    let respond_all = req.info2 & INFO2_RESPOND_ALL_OPS != 0;
    for op in req.ops.iter() {
        let ctx = Ctx {
            set: &set_name,
            digest,
            existing,
        };
        let value = match work.apply(op, &ctx) {
            Ok(StepOut::Value(v)) => v,
            Ok(StepOut::AllBins) if respond_all => return Outcome::err(rc::PARAMETER),
            Ok(StepOut::AllBins) => {
                all_bins(work.bins.bins(), reply, out);
                continue;
            }
            Ok(StepOut::Silent) => continue,
            Ok(StepOut::Nothing) => {
                if respond_all {
                    reply.op(out, op.name, pt::NULL, &[]);
                }
                continue;
            }
            Err(e) => return Outcome::err(e),
        };
        emit(reply, out, op.name, value.as_ref(), respond_all);
    }
    if !work.dirty {
        return match existing {
            Some(r) => Outcome::of(rc::OK, r),
            None => Outcome::err(rc::KEY_NOT_FOUND),
        };
    }
    if work.bins.len() > bins::MAX_BINS {
        return Outcome::err(rc::PARAMETER);
    }
    if work.bins.is_empty() {
        // A write that leaves no bins deletes the record: not found when there was none.
        if existing.is_none() {
            return Outcome::err(rc::KEY_NOT_FOUND);
        }
        if durable && !ns.durable_deletes {
            return Outcome::err(rc::ENTERPRISE_ONLY);
        }
        if ns.strong_consistency && !durable {
            return Outcome::err(rc::FORBIDDEN);
        }
        part.remove(digest);
        ns.count_change(-1);
        return Outcome::err(rc::OK);
    }
    let key = match req.key.and_then(parse_key) {
        Some(k) => Some(k),
        None => existing.and_then(|r| r.key.clone()),
    };
    let set_id = match existing {
        Some(r) => r.set_id,
        None => match ns.set_id(req.set) {
            Some(id) => id,
            None => return Outcome::err(rc::PARAMETER),
        },
    };
    let mut generation = existing.map_or(0, |r| r.generation).wrapping_add(1);
    if generation == 0 {
        generation = 1;
    }
    let record = Record {
        bins: work.bins.into_bins(),
        key,
        set_id,
        generation,
        void_time: void_time_for(req.ttl, existing.map(|r| r.void_time), now),
        last_update_ms: now,
        txn: None,
    };
    if record.size() > MAX_RECORD_SIZE {
        return Outcome::err(rc::RECORD_TOO_BIG);
    }
    let outcome = Outcome::of(rc::OK, &record);
    if part.insert(ns, *digest, record).is_none() {
        ns.count_change(1);
    }
    outcome
}

/// KEY field bytes (particle type + value) as a particle.
fn parse_key(field: &[u8]) -> Option<Particle> {
    let (ptype, data) = field.split_first()?;
    Some(Particle {
        ptype: *ptype,
        data: Bytes::copy_from_slice(data),
    })
}

/// What one op produced for the reply.
enum StepOut {
    Value(Option<Particle>),
    AllBins,
    Nothing,
    /// No answer even when every op must answer (a touch, as on a real server).
    Silent,
}

/// What expression ops need to see besides the bins.
struct Ctx<'a> {
    set: &'a str,
    digest: &'a Digest,
    existing: Option<&'a Record>,
}

/// Working copy of a record's bins during a write.
struct Work {
    bins: BinSet,
    dirty: bool,
    existed: bool,
    /// The request asked for no bin data (a `get_header` op rather than a read of all bins).
    header_only: bool,
}

impl Work {
    fn get(&self, name: &[u8]) -> Option<&Particle> {
        self.bins.get(name)
    }

    fn set(&mut self, name: BinName, value: Particle) {
        self.dirty = true;
        self.bins.set(name, value);
    }

    fn remove(&mut self, name: &[u8]) {
        self.dirty = true;
        self.bins.remove(name);
    }

    fn change(&mut self, name: BinName, change: BinChange) {
        match change {
            BinChange::Unchanged => {}
            BinChange::Set(p) => self.set(name, p),
            BinChange::Remove => self.remove(name.as_bytes()),
        }
    }

    fn view<'a>(&'a self, ctx: &'a Ctx<'_>) -> engine_ops::View<'a> {
        let bins = &self.bins;
        view(ctx.set, ctx.digest, bins.bins(), bins.index(), ctx.existing)
    }

    fn apply(&mut self, op: Op<'_>, ctx: &Ctx<'_>) -> Result<StepOut, u8> {
        match op.op {
            // A header read (`get_header`: no bin name, NOBINDATA without GET_ALL) answers
            // nothing of its own; only a read-all-bins op returns the bins.
            op::READ if op.name.is_empty() && self.header_only => return Ok(StepOut::Nothing),
            op::READ if op.name.is_empty() => return Ok(StepOut::AllBins),
            op::READ => return Ok(StepOut::Value(self.get(op.name).cloned())),
            op::TOUCH => {
                if !self.existed {
                    return Err(rc::KEY_NOT_FOUND);
                }
                self.dirty = true;
                return Ok(StepOut::Silent);
            }
            op::DELETE => {
                self.bins.clear();
                self.dirty = true;
                return Ok(StepOut::Nothing);
            }
            op::CDT_READ | op::BIT_READ | op::HLL_READ => {
                let (_, value) = engine_ops::cdt(op.op, self.get(op.name), op.data)?;
                return Ok(StepOut::Value(value));
            }
            op::EXP_READ => {
                let value = engine_ops::exp_read(op.data, &self.view(ctx))?;
                return Ok(StepOut::Value(value));
            }
            _ => {}
        }
        let name = BinName::new(op.name).ok_or(rc::BIN_NAME)?;
        match op.op {
            op::WRITE if op.ptype == pt::NULL => self.remove(op.name),
            op::WRITE => self.set(name, particle(op)?),
            op::ADD => {
                let operand = particle(op)?;
                let sum = match self.get(op.name) {
                    None => operand,
                    Some(cur) => add(cur, &operand)?,
                };
                self.set(name, sum);
            }
            op::APPEND | op::PREPEND => {
                let operand = particle(op)?;
                let joined = match self.get(op.name) {
                    None => operand,
                    Some(cur)
                        if cur.ptype == operand.ptype
                            && matches!(cur.ptype, pt::STRING | pt::BLOB) =>
                    {
                        let (a, b) = if op.op == op::APPEND {
                            (&cur.data, &operand.data)
                        } else {
                            (&operand.data, &cur.data)
                        };
                        let mut v = Vec::with_capacity(a.len() + b.len());
                        v.extend_from_slice(a);
                        v.extend_from_slice(b);
                        Particle {
                            ptype: cur.ptype,
                            data: Bytes::from(v),
                        }
                    }
                    Some(_) => return Err(rc::BIN_TYPE),
                };
                self.set(name, joined);
            }
            op::CDT_MODIFY | op::BIT_MODIFY | op::HLL_MODIFY => {
                let (change, value) = engine_ops::cdt(op.op, self.get(op.name), op.data)?;
                self.change(name, change);
                return Ok(StepOut::Value(value));
            }
            op::EXP_MODIFY => {
                let change = engine_ops::exp_write(op.data, name.as_str(), &self.view(ctx))?;
                self.change(name, change);
            }
            _ => return Err(rc::PARAMETER),
        }
        Ok(StepOut::Nothing)
    }
}

/// The op's value as a particle, checking fixed-size types.
fn particle(op: Op<'_>) -> Result<Particle, u8> {
    let ok = match op.ptype {
        pt::INTEGER | pt::FLOAT => op.data.len() == 8,
        pt::BOOL => op.data.len() == 1,
        pt::NULL => false,
        _ => true,
    };
    if !ok {
        return Err(rc::PARAMETER);
    }
    Ok(Particle {
        ptype: op.ptype,
        data: engine::key_order::stored(op.ptype, op.data),
    })
}

fn be8(data: &[u8]) -> Result<[u8; 8], u8> {
    data.try_into().map_err(|_| rc::PARAMETER)
}

/// Integer or float addition with the server's type rules (integers wrap).
fn add(cur: &Particle, operand: &Particle) -> Result<Particle, u8> {
    if cur.ptype != operand.ptype {
        return Err(rc::BIN_TYPE);
    }
    let bytes = match cur.ptype {
        pt::INTEGER => i64::from_be_bytes(be8(&cur.data)?)
            .wrapping_add(i64::from_be_bytes(be8(&operand.data)?))
            .to_be_bytes(),
        pt::FLOAT => (f64::from_be_bytes(be8(&cur.data)?)
            + f64::from_be_bytes(be8(&operand.data)?))
        .to_be_bytes(),
        _ => return Err(rc::BIN_TYPE),
    };
    Ok(Particle {
        ptype: cur.ptype,
        data: Bytes::copy_from_slice(&bytes),
    })
}
