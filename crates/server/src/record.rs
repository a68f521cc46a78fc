//! Single-record execution: read, write, delete, touch and operate against one digest.

mod read;
mod write;

use engine::particle_type as pt;
use engine::Particle;

use crate::bins::{self, BinIndex};
use crate::clock::{cl_secs, now_ms};
use crate::engine_ops::{self, View};
use crate::read_touch;
pub use crate::request::RecReq;
use crate::store::{partition_of, Bin, Digest, Namespace, Record};
use crate::txn;
use crate::wire::*;

use read::read;
use write::write;

/// Result codes the server produces here.
pub mod rc {
    pub const OK: u8 = 0;
    pub const KEY_NOT_FOUND: u8 = 2;
    pub const GENERATION: u8 = 3;
    pub const PARTITION_UNAVAILABLE: u8 = 11;
    pub const PARAMETER: u8 = 4;
    pub const KEY_EXISTS: u8 = 5;
    pub const BIN_TYPE: u8 = 12;
    pub const RECORD_TOO_BIG: u8 = 13;
    pub const KEY_BUSY: u8 = 14;
    pub const UNSUPPORTED_FEATURE: u8 = 16;
    pub const NAMESPACE_NOT_FOUND: u8 = 20;
    pub const BIN_NAME: u8 = 21;
    pub const FORBIDDEN: u8 = 22;
    pub const ENTERPRISE_ONLY: u8 = 25;
    pub const FILTERED_OUT: u8 = 27;
}

/// Header values of a reply.
struct Outcome {
    rc: u8,
    generation: u32,
    void_time: u32,
}

impl Outcome {
    fn err(rc: u8) -> Outcome {
        Outcome {
            rc,
            generation: 0,
            void_time: 0,
        }
    }

    fn of(rc: u8, r: &Record) -> Outcome {
        Outcome {
            rc,
            generation: u32::from(r.generation),
            void_time: r.void_time,
        }
    }
}

/// Executes `req` on `digest` and appends one reply message to `out` (`slot` goes in the
/// header's timeout field: the batch index in batch replies). Returns the result code.
pub fn execute(
    ns: &Namespace,
    digest: &Digest,
    req: &RecReq<'_>,
    out: &mut Vec<u8>,
    slot: u32,
) -> u8 {
    let now = now_ms();
    let mut reply = ReplyMsg::begin(out);
    let pid = partition_of(digest);
    // A field to answer with: the record version a transaction read, a monitor's deadline.
    let mut answer: Option<(u8, Vec<u8>)> = None;
    let outcome = if let Some(code) = txn::refusal(ns, req) {
        Outcome::err(code)
    } else if req.txn.info4 & txn::VERIFY_READ != 0 {
        Outcome::err(txn::verify(&ns.read(pid), digest, &req.txn))
    } else if req.txn.info4 & (txn::ROLL_FORWARD | txn::ROLL_BACK) != 0 {
        match req.txn.id {
            Some(id) => {
                let forward = req.txn.info4 & txn::ROLL_FORWARD != 0;
                txn::roll(ns, &mut ns.write(pid), digest, id, forward);
                Outcome::err(rc::OK)
            }
            None => Outcome::err(rc::PARAMETER),
        }
    } else if req.is_write() {
        let mut part = ns.write(pid);
        if ns.strong_consistency {
            match txn::before_write(&mut part, digest, req, cl_secs(now)) {
                Err(code) => Outcome::err(code),
                Ok(prep) => {
                    let outcome = write(ns, &mut part, digest, req, now, &mut reply, out);
                    let ok = outcome.rc == rc::OK;
                    if let Some(d) = txn::after_write(ns, &mut part, digest, prep, ok) {
                        answer = Some((txn::TXN_DEADLINE, txn::deadline_field(d).to_vec()));
                    }
                    outcome
                }
            }
        } else {
            write(ns, &mut part, digest, req, now, &mut reply, out)
        }
    } else {
        let part = ns.read(pid);
        let now_cl = cl_secs(now);
        let rec = part.get(digest).filter(|r| !r.expired(now_cl));
        let seen = if ns.strong_consistency {
            txn::visible(rec, &req.txn, now_cl)
        } else {
            Ok((rec, None))
        };
        match seen {
            Err(code) => Outcome::err(code),
            Ok((rec, version)) => {
                if let Some(v) = version {
                    answer = Some((txn::RECORD_VERSION, txn::version_field(v).to_vec()));
                }
                let touch = match rec {
                    Some(r) if req.may_touch() => read_touch::due(r, req.ttl, now),
                    _ => Ok(None),
                };
                let outcome = match touch {
                    Ok(_) => read(ns, digest, rec, req, &mut reply, out),
                    Err(code) => Outcome::err(code),
                };
                drop(part);
                if let Ok(Some(write_ttl)) = touch {
                    read_touch::apply(ns, digest, write_ttl, now);
                }
                outcome
            }
        }
    };
    if outcome.rc != rc::OK {
        reply.discard_body(out);
    } else if let Some((ftype, data)) = answer {
        reply.field_first(out, ftype, &data);
    }
    reply.finish(
        out,
        0,
        outcome.rc,
        outcome.generation,
        outcome.void_time,
        slot,
    );
    outcome.rc
}

fn view<'a>(
    ns_set: &'a str,
    digest: &'a Digest,
    bins: &'a [Bin],
    index: Option<&'a BinIndex>,
    rec: Option<&'a Record>,
) -> View<'a> {
    View {
        bins,
        index,
        key: rec.and_then(|r| r.key.as_ref()),
        set: ns_set,
        digest,
        generation: rec.map_or(0, |r| u32::from(r.generation)),
        void_time: rec.map_or(0, |r| r.void_time),
        last_update_ms: rec.map_or(0, |r| r.last_update_ms),
        exists: rec.is_some(),
    }
}

/// Whether `rec` passes the request's filter expression (`Err(FILTERED_OUT)` when not).
pub(crate) fn check_filter(
    ns: &Namespace,
    digest: &Digest,
    rec: &Record,
    filter: Option<&[u8]>,
) -> Result<(), u8> {
    let Some(exp) = filter else { return Ok(()) };
    // As a real server, a filter is built (and refused) only against a record that exists.
    engine_ops::check_filter(exp)?;
    let set = ns.set_name(rec.set_id);
    match engine_ops::filter_matches(exp, &view(&set, digest, &rec.bins, None, Some(rec))) {
        Ok(true) => Ok(()),
        Ok(false) => Err(rc::FILTERED_OUT),
        Err(e) => Err(e),
    }
}

/// Appends every live bin of `bins` as a reply op.
fn all_bins(bins: &[Bin], reply: &mut ReplyMsg, out: &mut Vec<u8>) {
    for b in bins.iter().filter(|b| bins::is_live(b)) {
        reply.op(out, b.name.as_bytes(), b.value.ptype, &b.value.data);
    }
}

/// Whether any op evaluates an expression (the only ops that read the set name).
fn uses_exp(req: &RecReq<'_>) -> bool {
    req.ops
        .iter()
        .any(|o| matches!(o.op, op::EXP_READ | op::EXP_MODIFY))
}

/// Appends an op result: the value, or a nil entry when every op must answer.
fn emit(
    reply: &mut ReplyMsg,
    out: &mut Vec<u8>,
    name: &[u8],
    value: Option<&Particle>,
    respond_all: bool,
) {
    match value {
        Some(v) => reply.op(out, name, v.ptype, &v.data),
        None if respond_all => reply.op(out, name, pt::NULL, &[]),
        None => {}
    }
}
