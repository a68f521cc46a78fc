//! A read: the record's bins, or what each read op makes of them.

use super::{all_bins, check_filter, emit, rc, uses_exp, view, Outcome, RecReq};
use crate::bins::{self, BinIndex};
use crate::engine_ops;
use crate::store::{BinName, Digest, Namespace, Record};
use crate::wire::*;

/// Reads with more ops than this on a record with more bins than this index the bins first.
const INDEX_READS_FROM: usize = 16;

pub fn read(
    ns: &Namespace,
    digest: &Digest,
    rec: Option<&Record>,
    req: &RecReq<'_>,
    reply: &mut ReplyMsg,
    out: &mut Vec<u8>,
) -> Outcome {
    let Some(rec) = rec else {
        return Outcome::err(rc::KEY_NOT_FOUND);
    };
    if let Err(e) = check_filter(ns, digest, rec, req.filter) {
        return Outcome::err(e);
    }
    if req.info1 & INFO1_NOBINDATA != 0 {
        return Outcome::of(rc::OK, rec);
    }
    if req.ops.is_empty() {
        // As a real server: a read names its bins or asks for all of them.
        if req.info1 & INFO1_GET_ALL == 0 {
            return Outcome::err(rc::PARAMETER);
        }
        all_bins(&rec.bins, reply, out);
        return Outcome::of(rc::OK, rec);
    }
    let respond_all = req.info2 & INFO2_RESPOND_ALL_OPS != 0;
    // Only expressions look at the set name: skip the lock and the allocation otherwise.
    let set = if uses_exp(req) {
        ns.set_name(rec.set_id)
    } else {
        String::new()
    };
    let index = (rec.bins.len() > INDEX_READS_FROM && req.ops.len() > INDEX_READS_FROM)
        .then(|| BinIndex::of(&rec.bins));
    let index = index.as_ref();
    for op in req.ops.iter() {
        if !BinName::is_valid(op.name) {
            return Outcome::err(rc::BIN_NAME);
        }
        let value = match op.op {
            op::READ if op.name.is_empty() => {
                all_bins(&rec.bins, reply, out);
                continue;
            }
            op::READ => bins::find(&rec.bins, index, op.name).map(|b| b.value.clone()),
            op::CDT_READ | op::BIT_READ | op::HLL_READ => {
                match engine_ops::cdt(op.op, rec.bin(op.name), op.data) {
                    Ok((_, v)) => v,
                    Err(e) => return Outcome::err(e),
                }
            }
            op::EXP_READ => {
                let view = view(&set, digest, &rec.bins, index, Some(rec));
                match engine_ops::exp_read(op.data, &view) {
                    Ok(v) => v,
                    Err(e) => return Outcome::err(e),
                }
            }
            _ => return Outcome::err(rc::PARAMETER),
        };
        emit(reply, out, op.name, value.as_ref(), respond_all);
    }
    Outcome::of(rc::OK, rec)
}
