//! Batch index protocol (field 41): many single-record requests in one message.

use std::time::Instant;

use crate::clock::transaction_deadline;
use crate::engine_ops;
use crate::record::{self, rc, RecReq};
use crate::security::{self, Grants};
use crate::store::Digest;
use crate::wire::*;
use crate::{cluster, udf, Shared};

const BATCH_MSG_REPEAT: u8 = 0x1;
const BATCH_MSG_INFO: u8 = 0x2;
const BATCH_MSG_GEN: u8 = 0x4;
const BATCH_MSG_TTL: u8 = 0x8;
const BATCH_MSG_INFO4: u8 = 0x10;

/// One decoded row: everything but the index and digest, reused by REPEAT rows.
#[derive(Clone, Copy)]
struct Row<'a> {
    req: RecReq<'a>,
    ns: Option<&'a [u8]>,
    fields: Fields<'a>,
}

/// Runs every row of the batch in `msg` and appends one reply message per row, then the LAST
/// marker. A malformed row list ends the batch with PARAMETER_ERROR.
pub fn handle(msg: &Msg<'_>, shared: &Shared, grants: &Grants, out: &mut Vec<u8>) {
    handle_with(msg, shared, grants, out, &mut |_| true);
}

/// Like [`handle`], but writes complete proto frames of about [`FRAME_CHUNK`] bytes, passing
/// each to `emit`, which sends and clears it (false: the peer is gone, stop).
pub fn handle_chunked(
    msg: &Msg<'_>,
    shared: &Shared,
    grants: &Grants,
    out: &mut Vec<u8>,
    emit: &mut dyn FnMut(&mut Vec<u8>) -> bool,
) {
    in_frames(out, emit, |out, after_row| {
        handle_with(msg, shared, grants, out, after_row)
    });
}

/// Runs the rows, calling `after_row` after each one (false stops the batch).
fn handle_with(
    msg: &Msg<'_>,
    shared: &Shared,
    grants: &Grants,
    out: &mut Vec<u8>,
    after_row: &mut dyn FnMut(&mut Vec<u8>) -> bool,
) {
    // A server builds the batch's filter once, before any row: a bad one fails the batch.
    let filter = msg.fields.get(field::FILTER_EXP);
    let result = match msg.fields.get(field::BATCH_INDEX) {
        _ if filter.is_some_and(|f| engine_ops::check_filter(f).is_err()) => Err(Malformed),
        Some(data) => run(data, msg, shared, grants, out, after_row),
        None => Err(Malformed),
    };
    let code = if result.is_ok() {
        rc::OK
    } else {
        rc::PARAMETER
    };
    header_only(out, INFO3_LAST, code, 0);
}

fn run(
    data: &[u8],
    msg: &Msg<'_>,
    shared: &Shared,
    grants: &Grants,
    out: &mut Vec<u8>,
    after_row: &mut dyn FnMut(&mut Vec<u8>) -> bool,
) -> Result<(), Malformed> {
    let mut r = Reader::new(data);
    let count = r.u32()?;
    let _flags = r.u8()?;
    let parent_filter = msg.fields.get(field::FILTER_EXP);
    let deadline = transaction_deadline(msg.header.timeout);
    let mut prev: Option<Row<'_>> = None;
    for _ in 0..count {
        let index = r.u32()?;
        let digest: &Digest = r.take(20)?.try_into().map_err(|_| Malformed)?;
        let kind = r.u8()?;
        let row = if kind & BATCH_MSG_REPEAT != 0 {
            prev.ok_or(Malformed)?
        } else {
            parse_row(&mut r, kind, parent_filter, deadline)?
        };
        prev = Some(row);
        execute_row(shared, grants, digest, &row, out, index);
        if !after_row(out) {
            break;
        }
    }
    Ok(())
}

fn parse_row<'a>(
    r: &mut Reader<'a>,
    kind: u8,
    parent_filter: Option<&'a [u8]>,
    deadline: Instant,
) -> Result<Row<'a>, Malformed> {
    let (info1, info2, info3) = if kind & BATCH_MSG_INFO != 0 {
        (r.u8()?, r.u8()?, r.u8()?)
    } else {
        (r.u8()?, 0, 0)
    };
    let info4 = if kind & BATCH_MSG_INFO4 != 0 {
        r.u8()?
    } else {
        0
    };
    let generation = if kind & BATCH_MSG_GEN != 0 {
        u32::from(r.u16()?)
    } else {
        0
    };
    let ttl = if kind & BATCH_MSG_TTL != 0 {
        r.u32()?
    } else {
        0
    };
    let n_fields = r.u16()?;
    let n_ops = r.u16()?;
    let fields = Fields::parse(r, n_fields)?;
    let ops = Ops::parse(r, n_ops)?;
    let txn = crate::txn::TxnFields::parse(info4, &fields).map_err(|()| Malformed)?;
    Ok(Row {
        req: RecReq {
            info1,
            info2,
            info3,
            generation,
            ttl,
            set: fields.get(field::SET).unwrap_or_default(),
            key: fields.get(field::KEY),
            filter: fields.get(field::FILTER_EXP).or(parent_filter),
            ops,
            deadline,
            txn,
        },
        ns: fields.get(field::NAMESPACE),
        fields,
    })
}

fn execute_row(
    shared: &Shared,
    grants: &Grants,
    digest: &Digest,
    row: &Row<'_>,
    out: &mut Vec<u8>,
    index: u32,
) {
    let is_udf = row.fields.get(field::UDF_PACKAGE).is_some();
    let write = is_udf || row.req.is_write() || row.req.may_touch();
    let ns = row.ns.unwrap_or_default();
    let perm = security::record_perm(&row.req, is_udf);
    if let Some(code) = grants.refusal(perm, ns, row.req.set) {
        return header_only(out, 0, code, index);
    }
    let served = cluster::keyed(shared, ns, digest, write, |node, ns| {
        if is_udf {
            udf::execute(node, ns, digest, &row.req, &row.fields, out, index);
        } else {
            record::execute(ns, digest, &row.req, out, index);
        }
    });
    if served.is_none() {
        header_only(out, 0, rc::NAMESPACE_NOT_FOUND, index);
    }
}
